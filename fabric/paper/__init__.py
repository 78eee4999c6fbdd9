"""``python -m fabric paper``: the MRC paper's testbed experiments, scaled, each with a
figure shaped like the paper's, a "paper vs ours" table and a JSON report
(docs/experiments.md)."""
