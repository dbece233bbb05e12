"""Neo4j access and the managed server: the driver wrapper (``graph``), the Cypher query loader
(``cypher``), whole-database chores (``chores``: counts, data and schema reset), schema migrations, the
project-managed Neo4j (``server``, its config files under ``server_files/``), projects, the offline bulk
importer, per-stage graph status and the Browser display captions.
"""
