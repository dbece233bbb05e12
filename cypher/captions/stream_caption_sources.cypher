// Every node (refresh) or every node without a caption, with the properties its display caption is made of
// and, for a file, its path in a workspace (graphforge.graphdb.captions).
// $refresh: bool
MATCH (n)
WHERE NOT n:__GraphforgeMigration AND ($refresh OR n.caption IS NULL)
OPTIONAL MATCH (:Workspace)-[c:CONTAINS]->(n)
WITH n, min(c.path) AS path
RETURN elementId(n) AS id, labels(n) AS labels, path,
       n {.name, .title, .statement, .requirement, .kind, .check, .ordinal, .polarity, .family, .version,
          .locator, .status, .label, .target_deliverable, .period, .pattern, .input_family, .model, .scaffold,
          .q, .arm, .value, .metric, .demand, .format, .task_id, .audit_id, .judge, .player, .elo, .anchor,
          .verdict, .reviewer, .workspace_id, .spec_id, .criterion_id, .sha256,
          .release_id, .code, text: left(n.text, 200)} AS props
