"""PlayCoder benchmark: sample apps with labelled bugs, and the speed/accuracy scripts (`python -m benchmark.perf`)."""
