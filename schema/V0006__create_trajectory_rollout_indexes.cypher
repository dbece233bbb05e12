// Lookups of the rollout and importer areas: trajectories of a spec, by scaffold and by model.
CREATE INDEX trajectory_spec_id IF NOT EXISTS FOR (n:Trajectory) ON (n.spec_id);
CREATE INDEX trajectory_scaffold IF NOT EXISTS FOR (n:Trajectory) ON (n.scaffold);
CREATE INDEX trajectory_model IF NOT EXISTS FOR (n:Trajectory) ON (n.model);
