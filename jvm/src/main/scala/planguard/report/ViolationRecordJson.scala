package planguard.report

import com.fasterxml.jackson.core.JsonGenerator
import com.fasterxml.jackson.databind.SerializerProvider
import com.fasterxml.jackson.databind.ser.std.StdSerializer

/**
 * A violation record's JSON, its fields under their own names (no rule: null), the one writer of
 * the record: for `planguard.violations`, `planguard check` and the event log alike. Python reads
 * it with `planguard._violations.read`; Spark's event log reads it back into the record by
 * those names.
 */
final class ViolationRecordJson extends StdSerializer[ViolationRecord](classOf[ViolationRecord]) {
  override def serialize(r: ViolationRecord, out: JsonGenerator,
      provider: SerializerProvider): Unit = {
    out.writeStartObject()
    out.writeStringField("id", r.id)
    out.writeStringField("level", r.level)
    out.writeStringField("phase", r.phase)
    out.writeStringField("rule", r.rule.orNull)
    out.writeStringField("expected", r.expected)
    out.writeStringField("actual", r.actual)
    out.writeArrayFieldStart("differences")
    r.differences.foreach(out.writeString)
    out.writeEndArray()
    out.writeStringField("plan", r.plan)
    out.writeNumberField("time", r.time)
    out.writeEndObject()
  }
}
