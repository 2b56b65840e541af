"""The differential mode: a query run again under plans Spark must agree with, its rows compared
with the baseline's (docs/pytest.md, "Differential mode"). ``variants`` says which plans,
``second_opinion`` runs and compares them, ``report`` words the outcome. The pytest plugin
(``planguard._pytest.differential``), ``planguard.testing.assert_same_answer`` and
``planguard check --differential`` use it."""
