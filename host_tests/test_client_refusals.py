# The phone client's refusal sentences: made at build time from firmware/web/refusals.json,
# checked against every refusal code the firmware defines (tools/refusal_codes.py). A page that
# names a code the firmware does not define does not build.
import json
import shutil
from pathlib import Path

import pytest

from build_image import BuildError, build_page, build_refusals, refusal_module, refusal_table
from refusal_codes import all_codes

WEB = Path(__file__).resolve().parents[1] / "firmware" / "web"


def copy_web(tmp_path):
    web = tmp_path / "web"
    shutil.copytree(WEB, web)
    return web


def test_every_sentence_is_of_a_code_the_firmware_defines():
    generic, sentences = refusal_table(WEB)
    assert generic == "The board said no."
    assert sentences and set(sentences) <= set(all_codes())
    # the codes a player meets in play have their own sentence
    for code in ("WALL", "COOLDOWN", "COUNTDOWN", "EXIT_CLOSED", "NOT_YOUR_EXIT", "NO_KEY"):
        assert code in sentences


def test_the_board_serves_the_generated_table_beside_the_page():
    # a file of its own (web/refusals.js), imported by the page when it joins: not bundled
    generic, sentences = refusal_table(WEB)
    module = refusal_module(generic, sentences)
    assert module.startswith("// Made by tools/build_image.py")
    assert build_refusals(WEB).decode() == module
    page = build_page(WEB).decode()
    assert "./refusals.js" in page
    for code, sentence in sentences.items():
        assert json.dumps(sentence) in module, code
        assert sentence not in page, code
    assert json.dumps(generic) in module
    # a code without a sentence (here BAD_JSON) falls back to the generic sentence at run time
    assert "BAD_JSON" in all_codes() and "BAD_JSON" not in sentences


def test_a_sentence_for_an_unknown_code_fails_the_build(tmp_path):
    web = copy_web(tmp_path)
    table = json.loads((web / "refusals.json").read_text())
    table["sentences"]["NO_SUCH_CODE"] = "Never sent."
    (web / "refusals.json").write_text(json.dumps(table))
    with pytest.raises(BuildError, match="NO_SUCH_CODE is not a refusal code"):
        build_page(web)


def test_a_module_naming_an_unknown_code_fails_the_build(tmp_path):
    web = copy_web(tmp_path)
    moves = web / "src" / "moves.js"
    moves.write_text(moves.read_text().replace('refused("WALL")', 'refused("WALLS")', 1))
    with pytest.raises(BuildError, match="names WALLS, which is not a refusal code"):
        build_page(web)


def test_a_malformed_table_fails_the_build(tmp_path):
    web = copy_web(tmp_path)
    for text in ("{", '{"generic": "", "sentences": {}}', '{"generic": "No.", "sentences": []}'):
        (web / "refusals.json").write_text(text)
        with pytest.raises(BuildError, match="refusals.json"):
            refusal_table(web)
    (web / "refusals.json").write_text('{"generic": "No.", "sentences": {"WALL": 3}}')
    with pytest.raises(BuildError, match="sentence of WALL"):
        refusal_table(web)


def test_a_missing_esbuild_is_a_clear_error(tmp_path, monkeypatch):
    monkeypatch.setenv("ESBUILD", str(tmp_path / "no-esbuild"))
    with pytest.raises(BuildError, match="esbuild is missing.*make venv"):
        build_page(WEB)
