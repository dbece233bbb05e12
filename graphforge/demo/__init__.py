"""The end-to-end demo (an ordered, timed list of stages) and the sample data it runs on; on top of stages."""
