package planguard.stages

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode

import planguard.schema.SchemaDiff

/**
 * A stage graph as JSON, for Python's `planguard.stages`: each object has exactly the fields of
 * its Python dataclass (`planguard._stages`), under their names, which are the Scala fields' in
 * snake case, so that Python builds each dataclass from its object as it is. Kinds are sent as
 * their names (the enumerations of Kinds.scala), schemas as Spark's StructType JSON; `text` and
 * `schema_text` are what the JVM prints (`BoundaryPartitioning.text`, planguard's schema
 * rendering), sent along so that Python prints the same.
 */
object StagesJson {
  private val mapper = new ObjectMapper()

  def apply(graph: StageGraph): String = mapper.writeValueAsString(node(graph))

  def node(graph: StageGraph): ObjectNode = {
    val o = mapper.createObjectNode()
    val stages = o.putArray("stages")
    graph.stages.foreach(s => stages.add(stage(s)))
    val notes = o.putArray("notes")
    graph.notes.foreach(n => notes.add(n))
    o
  }

  private def stage(s: Stage): ObjectNode = {
    val o = mapper.createObjectNode().put("id", s.id).put("kind", s.kind.toString)
    o.set[ObjectNode]("operators", operator(s.operators))
    val inputs = o.putArray("inputs")
    s.inputs.foreach(i => inputs.add(input(i)))
    o.set[ObjectNode]("output", partitioning(s.output))
    o.set[ObjectNode]("schema", mapper.readTree(s.schema.json))
    val consumers = o.putArray("consumers")
    s.consumers.foreach(c => consumers.add(c))
    o.put("schema_text", SchemaDiff.render(s.schema))
  }

  private def input(i: StageInput): ObjectNode = {
    val o = mapper.createObjectNode().put("exchange", i.exchange.toString)
    o.set[ObjectNode]("partitioning", partitioning(i.partitioning))
    o.put("from_stage", i.fromStage)
    o.set[ObjectNode]("schema", mapper.readTree(i.schema.json))
    o.put("reused", i.reused).put("schema_text", SchemaDiff.render(i.schema))
  }

  private def operator(op: StageOperator): ObjectNode = {
    val o = mapper.createObjectNode().put("name", op.name).put("args", op.args)
    val children = o.putArray("children")
    op.children.foreach(c => children.add(operator(c)))
    val inputs = o.putArray("inputs")
    op.inputs.foreach(i => inputs.add(i))
    o
  }

  private def partitioning(p: BoundaryPartitioning): ObjectNode = {
    val o = mapper.createObjectNode().put("kind", p.kind.toString)
    val keys = o.putArray("keys")
    p.keys.foreach(k => keys.add(k))
    optional(o, "partitions", p.partitions)
    val ordering = o.putArray("ordering")
    p.ordering.foreach(k => ordering.add(k))
    optional(o, "coalesced_from", p.coalescedFrom)
    val members = o.putArray("members")
    p.members.foreach(m => members.add(partitioning(m)))
    o.put("text", p.text)
  }

  /** An absent count is sent as null: every field is always there. */
  private def optional(o: ObjectNode, field: String, value: Option[Int]): Unit = value match {
    case Some(n) => o.put(field, n)
    case None => o.putNull(field)
  }
}
