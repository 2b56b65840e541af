import java.io.File

import scala.sys.process.Process

import sbt.io.IO
import sbt.util.Logger

/**
 * The jars a pyspark release ships (its source distribution's `deps/jars/`): Spark's own, for a
 * line whose Spark is not on Maven Central (SparkLine.fromPyPI). Downloaded once from PyPI with
 * pip into `<cache>/pyspark-<version>/jars/`; the build's projects ask at once, one downloads.
 */
object PySparkJars {
  def apply(version: String, cache: File, log: Logger): Seq[File] = synchronized {
    val jars = new File(cache, s"pyspark-$version/jars")
    if (!jars.isDirectory) {
      IO.withTemporaryDirectory { tmp =>
        log.info(s"Spark $version is not on Maven Central: taking its jars from pyspark $version")
        run(Seq("python3", "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary",
          ":all:", s"pyspark==$version", "-d", tmp.getPath))
        val archive = new File(tmp, s"pyspark-$version.tar.gz")
        run(Seq("tar", "-xzf", archive.getPath, "-C", tmp.getPath,
          s"pyspark-$version/deps/jars"))
        IO.createDirectory(jars.getParentFile)
        IO.move(new File(tmp, s"pyspark-$version/deps/jars"), jars)
      }
    }
    jars.listFiles().filter(_.getName.endsWith(".jar")).toSeq.sortBy(_.getName)
  }

  private def run(command: Seq[String]): Unit = {
    val status = Process(command).!
    if (status != 0) sys.error(s"${command.mkString(" ")} exited with $status")
  }
}
