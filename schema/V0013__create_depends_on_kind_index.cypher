// The judge reads a workspace's later-version (supersedes) and agreement (compare) edges by kind.
CREATE INDEX depends_on_kind IF NOT EXISTS FOR ()-[d:DEPENDS_ON]-() ON (d.kind);
