"""The study file as Optuna's storage URL, shared by the Optuna interop scripts.

A file Pitwall made has Optuna 3.1's table schema; Optuna 3.2 and later ask for `optuna storage upgrade` once (an
index on trials.study_id), as a user of a newer Optuna does. Pitwall reads and writes both.
"""
import optuna


def storage_url(path):
    url = "sqlite:///" + path
    if path:
        rdb = optuna.storages.RDBStorage(url, skip_compatibility_check=True)
        if rdb.get_current_version() != rdb.get_head_version():
            rdb.upgrade()
    return url
