// planguard: a Spark SQL extension that checks Spark's planning contracts.
// Spark is `provided`: the jar holds only planguard's classes.

val sparkVersion = "4.0.1" // keep equal to the pyspark pin in pyproject.toml (tests check it)

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

lazy val planguard = (project in file("."))
  .settings(
    name := "planguard",
    version := "0.1.0",
    organization := "io.github.planguard",
    scalaVersion := "2.13.16",
    javacOptions ++= Seq("--release", "17"),
    scalacOptions ++= Seq("-release", "17", "-deprecation", "-feature", "-Xlint:-unused,_"),
    Compile / scalaSource := baseDirectory.value / "jvm" / "src" / "main" / "scala",
    Compile / resourceDirectory := baseDirectory.value / "jvm" / "src" / "main" / "resources",
    Test / scalaSource := baseDirectory.value / "jvm" / "src" / "test" / "scala",
    Test / resourceDirectory := baseDirectory.value / "jvm" / "src" / "test" / "resources",
    libraryDependencies ++= Seq(
      "org.apache.spark" %% "spark-sql" % sparkVersion % Provided,
      "org.scalatest" %% "scalatest" % "3.2.19" % Test),
    // Stable names: the Python build bundles the first, pytest loads the second.
    Compile / packageBin / artifactPath := target.value / s"planguard-${version.value}.jar",
    Test / packageBin / artifactPath := target.value / "planguard-tests.jar",
    Test / fork := true,
    Test / parallelExecution := false,
    Test / javaOptions ++= sparkJavaModuleOptions ++ Seq("-Xmx3g", "-Dspark.ui.enabled=false"),
    Test / testOptions += Tests.Argument(TestFrameworks.ScalaTest, "-oD"))
