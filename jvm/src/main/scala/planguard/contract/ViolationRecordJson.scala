package planguard.contract

import java.io.StringWriter

import com.fasterxml.jackson.core.{JsonFactory, JsonGenerator}
import com.fasterxml.jackson.databind.SerializerProvider
import com.fasterxml.jackson.databind.ser.std.StdSerializer

/**
 * A violation record's JSON, its fields under their own names in snake case (no rule, no schema:
 * null), the one writer of the record: for `planguard.violations`, `planguard check`, the errors'
 * payload and the event log alike. Python reads it with `planguard._violations.read`; Spark's
 * event log reads it back into the record by those names.
 */
final class ViolationRecordJson extends StdSerializer[ViolationRecord](classOf[ViolationRecord]) {
  override def serialize(r: ViolationRecord, out: JsonGenerator,
      provider: SerializerProvider): Unit = ViolationRecordJson.write(r, out)
}

object ViolationRecordJson {
  private val factory = new JsonFactory

  /** The record as one JSON object. */
  def apply(record: ViolationRecord): String = {
    val text = new StringWriter
    val out = factory.createGenerator(text)
    write(record, out)
    out.close()
    text.toString
  }

  private def write(r: ViolationRecord, out: JsonGenerator): Unit = {
    out.writeStartObject()
    out.writeStringField("id", r.id)
    out.writeStringField("level", r.level)
    out.writeStringField("phase", r.phase)
    out.writeStringField("rule", r.rule.orNull)
    out.writeStringField("expected", r.expected)
    out.writeStringField("actual", r.actual)
    out.writeStringField("expected_schema", r.expectedSchema.orNull)
    out.writeStringField("actual_schema", r.actualSchema.orNull)
    out.writeArrayFieldStart("differences")
    r.differences.foreach(out.writeString)
    out.writeEndArray()
    out.writeStringField("plan", r.plan)
    out.writeNumberField("time", r.time)
    out.writeEndObject()
  }
}
