// Task-family patterns select facts by kind (date, requirement, definition, ...) within a workspace.
CREATE INDEX fact_kind IF NOT EXISTS FOR (f:Fact) ON (f.kind);
