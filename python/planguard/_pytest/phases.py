"""What the plugin's parts that judge each test phase share: a wrapper of each phase (setup, call,
teardown) that runs it through the part's own ``_checked(item, when)``."""
import pytest


class EachPhase:
    """Runs each phase of each test through ``self._checked(item, when)``, a generator that yields
    once to run the phase and fails it on what it found."""

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item):
        __tracebackhide__ = True
        return (yield from self._checked(item, "setup"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item):
        __tracebackhide__ = True
        return (yield from self._checked(item, "call"))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item):
        __tracebackhide__ = True
        return (yield from self._checked(item, "teardown"))
