# Set-up is part of every target: a fresh machine needs only `make run` or `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SAMPLE := samples/debs2015

.PHONY: run test test-fast lint typecheck bench golden clean flink flink-rate flink-stop

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

## run: the main job on the bundled DEBS 2015 sample: solve, validate, explain
run: $(STAMP)
	$(BIN)/streamplace solve $(SAMPLE)/application.yaml $(SAMPLE)/infrastructure.yaml \
		--objective $(SAMPLE)/objective-balanced.yaml -o out/debs2015-plan.yaml
	$(BIN)/streamplace validate $(SAMPLE)/application.yaml $(SAMPLE)/infrastructure.yaml \
		out/debs2015-plan.yaml --max-response-time '100 ms' --min-availability 0.99
	$(BIN)/streamplace explain $(SAMPLE)/application.yaml $(SAMPLE)/infrastructure.yaml \
		out/debs2015-plan.yaml

## test: the whole test suite (unit, property, CLI, doctests, end to end). The end-to-end
## tier (tests marked e2e) spends most of its time waiting on the clusters it starts, so it
## runs beside the rest; its report follows (out/e2e.log), and either failing fails the target.
## Each tier prints its 25 slowest tests. Each runs on WORKERS pytest-xdist workers, more than
## the cores: most tests wait on a window, a process or a cluster. Tests of one group
## (--dist loadgroup) share a worker: every Spark test (one session, one set of event logs),
## and each Flink cluster's tests (the cluster started once).
WORKERS ?= 4
test: $(STAMP)
	@mkdir -p out
	@$(BIN)/python -m pytest tests -m e2e -n $(WORKERS) --dist loadgroup -p no:cacheprovider \
		--durations=25 > out/e2e.log 2>&1 & e2e=$$!; \
	trap 'kill $$e2e 2>/dev/null' INT TERM; \
	$(BIN)/python -m pytest tests streamplace -m "not e2e" -n $(WORKERS) --dist loadgroup \
		--durations=25; rest=$$?; \
	wait $$e2e; tier=$$?; echo "== end-to-end tier (-m e2e)"; cat out/e2e.log; \
	[ $$rest -eq 0 ] && [ $$tier -eq 0 ]

## test-fast: the inner loop: everything but the engines, Spark and the installs into
## environments of their own (tests marked e2e, spark or install)
test-fast: $(STAMP)
	$(BIN)/python -m pytest tests streamplace -m "not e2e and not spark and not install" \
		-n $(WORKERS) --durations=10

## flink: a live Flink 2.2.1 session cluster on 127.0.0.1 running a Nexmark-shaped job (q1)
## offered RATE events/s, its address in out/flink/job; flink-rate offers another RATE;
## flink-stop stops it all (scripts/flink_local.py)
RATE ?= 150
flink: $(STAMP)
	$(BIN)/python scripts/flink_local.py start --rate $(RATE)

flink-rate: $(STAMP)
	$(BIN)/python scripts/flink_local.py rate $(RATE)

flink-stop: $(STAMP)
	$(BIN)/python scripts/flink_local.py stop

## lint: ruff and mypy strict on the package
lint: $(STAMP)
	$(BIN)/ruff check streamplace tests bench scripts
	$(BIN)/mypy streamplace

typecheck: lint

## bench: every benchmark script, printing ratios against its baseline
bench: $(STAMP)
	@for script in bench/*.py; do echo "== $$script"; $(BIN)/python $$script || exit 1; done

## golden: regenerate the checked-in JSON Schemas
golden: $(STAMP)
	$(BIN)/python scripts/regen_golden.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
