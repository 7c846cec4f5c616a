"""The study file as Optuna's storage URL, shared by the Optuna interop scripts.

A file Pitwall makes has the tables of every Optuna since 3.2 (alembic v3.2.0.a), which the newest Optuna opens as
they are. Debian 12's Optuna 3.1 does not know that revision: its user converts the file once with
`pitwall db migrate --optuna-schema 3.1` ($PITWALL_CLI), as the README says. A file at an older revision than the
installed Optuna's head gets `optuna storage upgrade`, as a user of a newer Optuna does. Pitwall reads and writes
all of them.
"""
import os
import subprocess

import optuna


def storage_url(path):
    url = "sqlite:///" + path
    if path:
        rdb = optuna.storages.RDBStorage(url, skip_compatibility_check=True)
        current, head = rdb.get_current_version(), rdb.get_head_version()
        if current != head:
            if current in rdb.get_all_versions():
                rdb.upgrade()
            else:
                rdb.engine.dispose()
                subprocess.run([os.environ["PITWALL_CLI"], "db", "migrate", "--db", path, "--optuna-schema", "3.1"],
                               check=True, stdout=subprocess.DEVNULL)
    return url
