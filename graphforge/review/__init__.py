"""Human review of task specs in Label Studio: the review project (labeling config and one task per spec),
the reviewers' verdicts read back from its annotations, and the verdicts as the graph keeps them.

- ``label_studio``: pure — the labeling config XML, tasks built from specs, annotations parsed into
  verdicts — and a small REST client for a running Label Studio (create a project, import tasks, export
  annotations, name the users).
- ``verdicts``: the verdicts stored in the graph (``(:Review)-[:REVIEWS]->(:TaskSpec|:Criterion)`` and the
  latest one on the node), and what admission and export do with them: a rejected spec is not used, a
  rejected criterion is dropped from the rubric and from Q, an edited criterion's requirement is the
  reviewer's text.
"""
