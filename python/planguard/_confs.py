"""Session confs set for the length of a block, then restored as they were (unset when they
were unset)."""
import contextlib


@contextlib.contextmanager
def set_for(spark, confs: dict):
    previous = {key: spark.conf.get(key, None) for key in confs}
    try:
        for key, value in confs.items():
            spark.conf.set(key, value)
        yield
    finally:
        for key, value in previous.items():
            if value is None:
                spark.conf.unset(key)
            else:
                spark.conf.set(key, value)
