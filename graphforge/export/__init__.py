"""Export for the trainer: SFT and RFT sets in trl's conversational format, rubrics as reward functions.

Pure helpers live here (row building, token counting, RFT selection, the audit guard, the streaming
writer); the stages that read the graph are ``graphforge.stages.export_sft`` / ``export_rft`` /
``export_rubrics``. ``graphforge.export.reward`` needs no Neo4j at training time.
"""
