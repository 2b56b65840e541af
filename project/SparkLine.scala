/**
 * One Spark line planguard is built for (build.sbt lists them): the Spark release it compiles and
 * tests against, the Scala version that release's pom builds with, and the shim source folders,
 * under jvm/src/main/ (and jvm/src/test/), that hold the code for what differs on the line.
 *
 * @param fromPyPI Maven Central has no Spark of this line: it compiles against the jars that the
 *                 pyspark release of the same version ships (PySparkJars), and runs no ScalaTest
 *                 suite (Spark's test jars, which the suites need, come from Maven Central only)
 */
final case class SparkLine(line: String, spark: String, scala: String, shims: Seq[String],
    fromPyPI: Boolean = false) {
  def scalaBinary: String = scala.split('.').take(2).mkString(".")

  /** `spark4.1_2.13`: part of the jar's name, as Delta names its artifacts per line. */
  def suffix: String = s"spark${line}_$scalaBinary"
}
