# Set-up is part of every target: a fresh machine needs only `make run` or `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
SAMPLE := samples/debs2015

.PHONY: run test lint typecheck bench golden clean

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

## test: the whole test suite (unit, property, CLI, doctests)
test: $(STAMP)
	$(BIN)/python -m pytest tests streamplace

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
