package planguard.stages

import com.fasterxml.jackson.databind.ObjectMapper
import com.fasterxml.jackson.databind.node.ObjectNode

import planguard.schema.SchemaDiff

/** A stage graph as JSON, for Python's `planguard.stages` (schemas as Spark's StructType JSON). */
object StagesJson {
  private val mapper = new ObjectMapper()

  def apply(graph: StageGraph): String = mapper.writeValueAsString(node(graph))

  def node(graph: StageGraph): ObjectNode = {
    val o = mapper.createObjectNode()
    val stages = o.putArray("stages")
    graph.stages.foreach { s =>
      val n = stages.addObject().put("id", s.id).put("kind", s.kind)
      n.set[ObjectNode]("root", operator(s.root))
      val inputs = n.putArray("inputs")
      s.inputs.foreach { i =>
        val in = inputs.addObject().put("exchange", i.exchange).put("from", i.from)
          .put("reused", i.reused).put("schema_text", SchemaDiff.render(i.schema))
        in.set[ObjectNode]("partitioning", partitioning(i.partitioning))
        in.set[ObjectNode]("schema", mapper.readTree(i.schema.json))
      }
      n.set[ObjectNode]("output", partitioning(s.output))
      n.set[ObjectNode]("schema", mapper.readTree(s.schema.json))
      n.put("schema_text", SchemaDiff.render(s.schema))
      val consumers = n.putArray("consumers")
      s.consumers.foreach(c => consumers.add(c))
    }
    val notes = o.putArray("notes")
    graph.notes.foreach(n => notes.add(n))
    o
  }

  private def operator(op: StageOperator): ObjectNode = {
    val o = mapper.createObjectNode().put("name", op.name).put("args", op.args)
    val inputs = o.putArray("inputs")
    op.inputs.foreach(i => inputs.add(i))
    val children = o.putArray("children")
    op.children.foreach(c => children.add(operator(c)))
    o
  }

  private def partitioning(p: BoundaryPartitioning): ObjectNode = {
    val o = mapper.createObjectNode().put("kind", p.kind).put("text", p.text)
    p.partitions.foreach(n => o.put("partitions", n))
    p.coalescedFrom.foreach(n => o.put("coalesced_from", n))
    val keys = o.putArray("keys")
    p.keys.foreach(k => keys.add(k))
    val ordering = o.putArray("ordering")
    p.ordering.foreach(k => ordering.add(k))
    val members = o.putArray("members")
    p.members.foreach(m => members.add(partitioning(m)))
    o
  }
}
