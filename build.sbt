// planguard: a Spark SQL extension that checks Spark's planning contracts.
// Spark is `provided`: the jar holds only planguard's classes.

// The default line's Spark: keep equal to the pyspark of pyproject.toml's test extra (tests check
// it): the development environment and CI's full tier run this line on this Spark.
val sparkVersion = "4.0.1"

// Every Spark line planguard builds for (project/SparkLine.scala): the newest release of the line
// on Maven Central, the Scala version that release's pom builds with, and the line's shim folders
// under jvm/src/main/ and jvm/src/test/, added to the common jvm/src/*/scala. Choose one with
// `-Dspark.line=<line>` (or the full Spark version): `dev/sbt -Dspark.line=4.1 test`. Each line
// builds into target/spark-<line>/, its jar named planguard-spark<line>_<scala>-<version>.jar.
// docs/spark-lines-notes.md says what differs between the lines and how each shim handles it.
// Maven Central has no Spark 4.3: that line compiles against the jars pyspark 4.3.0 ships.
val sparkLines = Seq(
  SparkLine("3.5", "3.5.9", "2.12.18", Seq("spark-3.5", "spark-3.5-4.1")),
  SparkLine("4.0", sparkVersion, "2.13.16", Seq("spark-4.x", "spark-3.5-4.1")),
  SparkLine("4.1", "4.1.3", "2.13.17", Seq("spark-4.x", "spark-3.5-4.1")),
  SparkLine("4.2", "4.2.0", "2.13.18", Seq("spark-4.x", "spark-4.2")),
  SparkLine("4.3", "4.3.0", "2.13.18", Seq("spark-4.x", "spark-4.2"), fromPyPI = true))
val defaultLine = "4.0"

val sparkLine: SparkLine = {
  val wanted = sys.props.getOrElse("spark.line", defaultLine)
  sparkLines.find(l => l.line == wanted || l.spark == wanted).getOrElse(sys.error(
    s"-Dspark.line=$wanted: no such Spark line; choose one of " +
      sparkLines.map(_.line).mkString(", ")))
}

// Spark 3.5 runs on Java 8, 11 and 17 (platforms still run it on 8): its jar is Java 8 bytecode.
// Spark 4 requires Java 17.
val javaRelease = if (sparkLine.line == "3.5") "8" else "17"

// What spark-submit and PySpark add on Java 17 (org.apache.spark.launcher.JavaModuleOptions);
// forked ScalaTest JVMs need them too.
val sparkJavaModuleOptions = Seq(
  "-XX:+IgnoreUnrecognizedVMOptions",
  "--add-modules=jdk.incubator.vector",
  "--add-opens=java.base/java.lang=ALL-UNNAMED",
  "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED",
  "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
  "--add-opens=java.base/java.io=ALL-UNNAMED",
  "--add-opens=java.base/java.net=ALL-UNNAMED",
  "--add-opens=java.base/java.nio=ALL-UNNAMED",
  "--add-opens=java.base/java.util=ALL-UNNAMED",
  "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
  "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
  "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED",
  "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
  "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED",
  "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
  "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED",
  "-Djdk.reflect.useDirectMethodHandle=false",
  "-Dio.netty.tryReflectionSetAccessible=true")

// What every project of the build shares: the chosen line's Scala, Java release and Spark.
lazy val onTheLine = Seq(
  version := "0.1.0",
  organization := "io.github.planguard",
  scalaVersion := sparkLine.scala,
  javacOptions ++= Seq("--release", javaRelease),
  scalacOptions ++= Seq("-release", javaRelease, "-deprecation", "-feature",
    "-Xlint:-unused,_"),
  libraryDependencies ++= (if (sparkLine.fromPyPI) Nil
    else Seq("org.apache.spark" %% "spark-sql" % sparkLine.spark % Provided)),
  // Not packaged: like a Provided dependency, on the classpath to compile and test against.
  Compile / unmanagedJars ++= (if (!sparkLine.fromPyPI) Nil else PySparkJars(sparkLine.spark,
    (ThisBuild / baseDirectory).value / ".cache", streams.value.log).classpath))

lazy val planguard = (project in file("."))
  .aggregate(LocalProject("tools"), demo)
  .settings(onTheLine)
  .settings(
    name := "planguard",
    target := baseDirectory.value / "target" / s"spark-${sparkLine.line}",
    Compile / scalaSource := baseDirectory.value / "jvm" / "src" / "main" / "scala",
    Compile / javaSource := baseDirectory.value / "jvm" / "src" / "main" / "java",
    // The line the jar is built for and every line there is, read by planguard.install.BuiltFor.
    Compile / resourceGenerators += Def.task {
      val file = (Compile / resourceManaged).value / "planguard" / "build.properties"
      val lines = sparkLines.map(_.line).mkString(",")
      IO.write(file, s"spark.line=${sparkLine.line}\nspark.version=${sparkLine.spark}\n" +
        s"scala.binary=${sparkLine.scalaBinary}\nspark.lines=$lines\n")
      Seq(file)
    }.taskValue,
    Compile / unmanagedSourceDirectories ++=
      sparkLine.shims.map(baseDirectory.value / "jvm" / "src" / "main" / _),
    Compile / resourceDirectory := baseDirectory.value / "jvm" / "src" / "main" / "resources",
    Test / scalaSource := baseDirectory.value / "jvm" / "src" / "test" / "scala",
    Test / unmanagedSourceDirectories ++=
      sparkLine.shims.map(baseDirectory.value / "jvm" / "src" / "test" / _),
    Test / resourceDirectory := baseDirectory.value / "jvm" / "src" / "test" / "resources",
    libraryDependencies += "org.scalatest" %% "scalatest" % "3.2.19" % Test,
    // Spark's own test catalogs (Maven Central's `tests` jar): a v2 table with row-level DELETE,
    // UPDATE and MERGE (InMemoryRowLevelOperationTableCatalog), as Iceberg's tables have.
    libraryDependencies ++= (if (sparkLine.fromPyPI) Nil
      else Seq(("org.apache.spark" %% "spark-catalyst" % sparkLine.spark % Test)
        .classifier("tests"))),
    // A line from PyPI has no Spark test jars: its test jar holds the broken rules and test
    // extensions the Python tests load, not the suites.
    Test / unmanagedSources / excludeFilter := (if (sparkLine.fromPyPI)
      HiddenFileFilter || "*Suite.scala" || "SparkSessions.scala" else HiddenFileFilter),
    // One jar per line; the Python build (setup.py) bundles the first, pytest loads the second.
    Compile / packageBin / artifactPath :=
      target.value / s"planguard-${sparkLine.suffix}-${version.value}.jar",
    Test / packageBin / artifactPath := target.value / s"planguard-tests-${sparkLine.suffix}.jar",
    Test / fork := true,
    Test / parallelExecution := false,
    Test / javaOptions ++= sparkJavaModuleOptions ++ Seq("-Xmx3g", "-Dspark.ui.enabled=false"),
    // The suites' tier (SparkSessions.legalAdaptiveModes): dev/test-lines passes `smoke` in CI.
    Test / javaOptions ++=
      sys.props.get("planguard.tests.tier").map(tier => s"-Dplanguard.tests.tier=$tier"),
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"))

// `planguard demo`'s deliberately broken optimizer rule, in a jar of its own that the wheel
// bundles for the demo alone: planguard's jar holds no rule that breaks a plan.
lazy val demo = (project in file("jvm/demo"))
  .settings(onTheLine)
  .settings(
    name := "planguard-demo",
    target := (ThisBuild / baseDirectory).value / "target" / s"spark-${sparkLine.line}" / "demo",
    Compile / packageBin / artifactPath :=
      target.value / s"planguard-demo-${sparkLine.suffix}-${version.value}.jar")

// The tooling a user opts into, in a jar of its own beside planguard's: the stages of a query
// (planguard.stages, planguard explain) and the checking of SQL statements that never run
// (planguard check). It reads what the checks' jar computes; nothing there depends on it.
lazy val tools = (project in file("jvm/tools"))
  .dependsOn(planguard)
  .settings(onTheLine)
  .settings(
    name := "planguard-tools",
    target := (ThisBuild / baseDirectory).value / "target" / s"spark-${sparkLine.line}" / "tools",
    Compile / packageBin / artifactPath :=
      target.value / s"planguard-tools-${sparkLine.suffix}-${version.value}.jar")
