"""The Optuna side of bench_store_writers: one writer process on Optuna's RDBStorage.

usage: bench_store_writers_optuna.py URL STUDY MODE START_AT SECONDS
MODE asktell: create a trial, set a parameter, complete it with a value, again and again (what ask and tell write).
MODE metrics: one trial, an intermediate value per step (Optuna's only per-step series).
Waits until the wall clock reaches START_AT, works for SECONDS, prints how many trials or rows it wrote.
"""
import sys
import time

import optuna
from optuna.distributions import FloatDistribution
from optuna.trial import TrialState


def main():
    url, study_name, mode, start_at, seconds = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = optuna.storages.RDBStorage(url)
    study_id = storage.get_study_id_from_name(study_name)
    distribution = FloatDistribution(-1.0, 1.0)
    time.sleep(max(0.0, start_at - time.time()))
    end = start_at + seconds
    count = 0
    if mode == "asktell":
        while time.time() < end:
            trial_id = storage.create_new_trial(study_id)
            storage.set_trial_param(trial_id, "x", 0.5, distribution)
            storage.set_trial_state_values(trial_id, TrialState.COMPLETE, [0.25])
            count += 1
    else:
        trial_id = storage.create_new_trial(study_id)
        while time.time() < end:
            storage.set_trial_intermediate_value(trial_id, count, 0.1 * count)
            count += 1
    print(count)


if __name__ == "__main__":
    main()
