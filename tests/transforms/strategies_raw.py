"""Hypothesis strategies for the raw-source parsers (USR, TAC, COCO).

Each builds a well-formed file of its format from random names and scalars
(junk included), and the mangling of ``strategies_instance.mangled`` breaks
it the ways real files break.  The reference counts the tests compare the
parsers with come from Python's own ``json`` module on the same bytes.
"""

from __future__ import annotations

import json

from hypothesis import strategies as st

# A JSON scalar as a dump might hold it in a score's place.
json_scalars = st.one_of(
    st.integers(min_value=-5, max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["", "-", "3", "x", None, True, False]),
)
raw_names = st.one_of(
    st.sampled_from(["KV-MemNN", "Seq2Seq", "0", "A", "C", "D0845", "we ird", "é"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=6),
)
ratings = st.sampled_from(["Overall", "Natural", "Uses Knowledge", "response"])


@st.composite
def usr_documents(draw: st.DrawFn) -> str:
    """A USR ratings file: contexts with annotators and responses rated once per annotator."""
    contexts = []
    for _ in range(draw(st.integers(0, 3))):
        annotators = draw(st.lists(raw_names, min_size=1, max_size=3))
        responses = []
        for _ in range(draw(st.integers(0, 3))):
            response = {"response": "text", "model": draw(raw_names)}
            for rating in draw(st.lists(ratings.filter(lambda r: r != "response"), max_size=3, unique=True)):
                response[rating] = draw(st.lists(json_scalars, min_size=len(annotators), max_size=len(annotators)))
            responses.append(response)
        contexts.append({"context": "c", "fact": "f", "annotators": annotators, "responses": responses})
    return json.dumps(contexts, indent=draw(st.sampled_from([None, 2])))


@st.composite
def tac_documents(draw: st.DrawFn) -> str:
    """A TAC judgments file: topics with references and annotations per summarizer."""
    doc = {}
    for topic in draw(st.lists(raw_names, max_size=3, unique=True)):
        notes = []
        for summarizer in draw(st.lists(raw_names, max_size=4)):
            note = {"summ_id": summarizer, "topic_id": f"{topic}-A", "text": ["a summary"]}
            for key in draw(st.lists(st.sampled_from(["responsiveness", "pyr_score", "pyr_mod_score"]), unique=True)):
                note[key] = draw(json_scalars)
            notes.append(note)
        doc[topic] = {"references": [{"text": ["a reference"], "id": "r"}], "annotations": notes}
    return json.dumps(doc, indent=draw(st.sampled_from([None, 1])))


coco_metrics = st.sampled_from(["CIDEr", "Bleu_4", "Bleu_1", "ROUGE_L", "METEOR"])
coco_values = st.one_of(st.floats(min_value=0, max_value=2).map(lambda v: f"{v:.6f}"), st.sampled_from(["", "x", "nan", "0"]))


@st.composite
def coco_scores(draw: st.DrawFn) -> str:
    """A COCO scores.txt: 'METRIC<Test5|Test40>: value' lines."""
    lines = [
        f"{draw(coco_metrics)}Test{draw(st.sampled_from(['5', '40']))}: {draw(coco_values)}"
        for _ in range(draw(st.integers(1, 8)))
    ]
    return "\n".join(lines) + draw(st.sampled_from(["", "\n"]))


@st.composite
def coco_evals(draw: st.DrawFn) -> str:
    """A COCO eval JSON: {metric: value}."""
    return json.dumps(draw(st.dictionaries(coco_metrics, json_scalars, min_size=1, max_size=5)))
