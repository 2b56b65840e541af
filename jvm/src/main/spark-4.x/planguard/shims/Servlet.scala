package planguard.shims

/**
 * The HTTP request a Spark UI page renders. Spark 4 serves its UI with jakarta.servlet; Spark 3.5
 * with javax.servlet.
 */
object Servlet {
  type Request = jakarta.servlet.http.HttpServletRequest
}
