package planguard

import java.util.{Collections, WeakHashMap}

import org.apache.spark.sql.SparkSessionExtensions

/**
 * Remembers which sessions' extensions an extension class was applied to, so that one listed
 * twice in spark.sql.extensions (or listed and also added by a platform's defaults) injects its
 * rules once. Weak: the extensions of a stopped session are forgotten with it.
 */
final class AppliedOnce {
  private val applied = Collections.synchronizedSet(Collections.newSetFromMap(
    new WeakHashMap[SparkSessionExtensions, java.lang.Boolean]))

  /** True the first time it is asked about `extensions`, false after that. */
  def first(extensions: SparkSessionExtensions): Boolean = applied.add(extensions)
}
