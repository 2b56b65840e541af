"""The results a worker process hands to the pytest process that waits for it, as JSON."""
import contextlib
import json
import pathlib
import traceback


@contextlib.contextmanager
def results_file(out: pathlib.Path):
    """Yields a dict for the block to fill, then writes it to out whole (a reader polls for out);
    if the block raises, its traceback goes to out.failed instead."""
    try:
        results = {}
        yield results
        partial = out.with_suffix(".partial")
        partial.write_text(json.dumps(results))
        partial.rename(out)
    except BaseException:
        out.with_suffix(".failed").write_text(traceback.format_exc())
        raise
