package planguard.install;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;

import org.slf4j.LoggerFactory;

/**
 * The Spark line this jar was built for, and whether an extension of it may install on the Spark
 * that runs. A jar built for another line must never stop a session from starting (Spark 3.5 has
 * no hint resolution rules, 4.2 renamed key-grouped partitioning): such a jar installs nothing,
 * logs one line that names the jar to use, and the session's queries run as without planguard.
 *
 * <p>Java, not Scala: it runs first in every extension, on whatever Spark loaded the jar, so it
 * must link on Scala 2.12 and 2.13 alike. The build writes planguard/build.properties.
 */
public final class BuiltFor {

  /** The line this jar was built for: "4.0". */
  public static final String LINE;
  /** Every line planguard builds for, oldest first: ["3.5", "4.0", "4.1", "4.2"]. */
  public static final List<String> LINES;

  static {
    Properties built = new Properties();
    try (InputStream in = BuiltFor.class.getResourceAsStream("/planguard/build.properties")) {
      built.load(in);
    } catch (IOException | NullPointerException e) {
      throw new IllegalStateException("planguard's jar lacks planguard/build.properties", e);
    }
    LINE = built.getProperty("spark.line");
    LINES = Arrays.asList(built.getProperty("spark.lines").split(","));
  }

  private BuiltFor() {}

  /** How the running Spark's line stands to this jar's. */
  public enum Fit {
    /** The line the jar was built for. */
    SAME,
    /** A line newer than every line planguard builds for, with the jar of the newest. */
    NEWER,
    /** Any other: an older line, another line planguard has a jar for, or one before 3.5. */
    OTHER
  }

  /** "4.1" of "4.1.1", "4.1.1-amzn-0", "4.1.0-SNAPSHOT"; the version itself if it has no minor. */
  public static String lineOf(String sparkVersion) {
    String[] parts = sparkVersion.split("[.-]");
    return parts.length < 2 ? sparkVersion : parts[0] + "." + parts[1];
  }

  public static Fit fit(String sparkVersion) {
    String running = lineOf(sparkVersion);
    if (running.equals(LINE)) return Fit.SAME;
    String newest = LINES.get(LINES.size() - 1);
    if (LINE.equals(newest) && newer(running, newest)) return Fit.NEWER;
    return Fit.OTHER;
  }

  /**
   * Whether `extension` (a class name, for the log) installs on the running Spark: yes on the
   * jar's own line; on a newer line than any planguard builds for, only if `onNewerLine`, with
   * one warning; otherwise no, with one warning naming the jar to use.
   */
  public static boolean installs(String extension, boolean onNewerLine) {
    String version = org.apache.spark.package$.MODULE$.SPARK_VERSION();
    Fit fit = fit(version);
    if (fit == Fit.SAME) return true;
    String running = lineOf(version);
    String built = "planguard's jar for Spark " + LINE + " runs on Spark " + version;
    if (fit == Fit.NEWER && onNewerLine) {
      warn(built + ", a line newer than every line planguard builds for (" + LINES + "): "
          + extension + " installs; a check this Spark cannot run logs an internal error and "
          + "lets its query go on.");
      return true;
    }
    String fix = LINES.contains(running)
        ? "Use planguard's jar for Spark " + running + ": the path `planguard jar --spark "
            + running + "` prints."
        : fit == Fit.NEWER
            ? "It is not available on a line newer than " + LINE + "."
            : "planguard supports Spark " + String.join(", ", LINES) + ".";
    warn(built + ": " + extension + " installs nothing, and queries run without it. " + fix);
    return false;
  }

  private static boolean newer(String line, String than) {
    try {
      String[] a = line.split("\\.");
      String[] b = than.split("\\.");
      int major = Integer.compare(Integer.parseInt(a[0]), Integer.parseInt(b[0]));
      return major > 0 || (major == 0 && Integer.parseInt(a[1]) > Integer.parseInt(b[1]));
    } catch (RuntimeException notAVersion) {
      return false;
    }
  }

  private static void warn(String line) {
    LoggerFactory.getLogger("planguard").warn(line);
  }
}
