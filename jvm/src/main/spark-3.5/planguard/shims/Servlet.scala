package planguard.shims

/**
 * The HTTP request a Spark UI page renders. Spark 3.5 serves its UI with javax.servlet; Spark 4
 * moved to jakarta.servlet.
 */
object Servlet {
  type Request = javax.servlet.http.HttpServletRequest
}
