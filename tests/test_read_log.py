"""read_log: every format's fixture to the same tidy shape, sniffing, directories, the wide
view, malformed files, and the command line on them."""

import io
import json
import math
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from swarmstats import InputError
from swarmstats.io import LOG_FORMATS, read_log
from swarmstats.io.columns import table_roles
from swarmstats.io.runs import find_runs
from tests.test_cli import run as cli
from tests.test_cli import watched_metrics

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "logs"

# path -> (format sniffed, a metric, {step: value} of that metric, run or None)
CASES = {
    # worker 1 starts 0.2 s before worker 0: its episodes at 0.10 and 0.14 s come first
    "monitor": ("monitor", "r", {0: 11.0, 1: 30.0, 2: 14.0, 3: 27.0, 4: 9.0}, None),
    "monitor/0.monitor.csv": ("monitor", "r", {0: 14.0, 1: 27.0, 2: 9.0}, None),
    "sb3/progress.csv": ("sb3-progress", "rollout/ep_rew_mean", {2048: 21.3, 4096: 27.9, 6144: 41.2}, None),
    "sb3/evaluations.npz": ("sb3-evaluations", "eval/mean_reward", {1000: 2.0, 2000: 3.0, 3000: 6.0}, None),
    # SB3's printed tables: ep_rew_mean printed to 3 digits (22.272727 in its progress.csv)
    "sb3-console/first-three.txt": ("sb3-console", "rollout/ep_rew_mean", {128: 30.0, 256: 22.3, 384: 26.4}, None),
    # a Trainer's printed dicts: step k = the k-th training log (logging_steps=10 here)
    "hf-printed/printed.txt": ("hf-printed", "eval_loss", {5: 1.831, 10: 0.4481, 15: 0.1484, 20: 0.1184}, None),
    # the table a Trainer draws in a notebook: each training cell's table a run
    "hf-notebook/train.ipynb": ("hf-notebook", "Training Loss", {10: 1.767, 20: 1.64331, 30: 1.528278, 40: 1.421299,
                                                                 50: 1.321808, 60: 1.229281, 70: 1.143232,
                                                                 80: 1.063205}, "cell 4"),
    # verl's printed step lines among a Ray job's output; its file logger's JSON Lines
    "verl/console.log": ("verl-console", "critic/score/mean",
                         {1: 0.259, 2: 0.315, 3: 0.402, 4: 0.451, 5: 0.497, 6: 0.52}, None),
    "verl/file.jsonl": ("verl-file", "critic/score/mean", {1: 0.259, 2: 0.315, 3: 0.402}, None),
    # what nanoGPT's train.py prints: "iter N: loss X, time Yms, mfu Z%" and "step N: train loss ..."
    "nanogpt/train.log": ("nanogpt-console", "loss", {0: 4.2654, 10: 3.2118, 20: 2.7846, 30: 2.6221,
                                                      40: 2.5358, 50: 2.4711, 60: 2.4262}, None),
    # pymarl's printed statistics (sacred's cout.txt), its info.json (each metric beside its _T
    # timesteps) and sacred's own metrics.json
    "pymarl/cout.txt": ("pymarl-console", "test_return_mean", {40: 1.9843, 10001: 2.8255, 20002: 5.2139}, None),
    "sacred/results/sacred/1/info.json": ("pymarl-info", "test_return_mean",
                                          {40: 1.98, 10040: 2.83, 20052: 3.21, 30060: 4.02}, None),
    "sacred/results/sacred": ("pymarl-info", "loss", {1218: 0.06, 11240: 0.03, 21262: 0.025}, "2"),
    # TorchRL's CSV logger (BenchMARL): a headerless step,value file per metric
    "torchrl/csv_logs/mappo_balance_mlp__seed0/scalars/eval/success.csv": (
        "torchrl-csv", "success", {0: 0.0, 5: 0.0, 10: 0.2, 15: 0.4, 20: 0.6, 25: 0.8}, None),
    "torchrl/csv_logs/mappo_balance_mlp__seed0": ("torchrl-csv", "eval/success",
                                                 {0: 0.0, 5: 0.0, 10: 0.2, 15: 0.4, 20: 0.6, 25: 0.8}, None),
    # what ML-Agents' mlagents-learn prints: a summary line per behaviour, each behaviour a run
    "mlagents/soccer.log": ("mlagents-console", "ELO", {10000 * (k + 1): 1200 - 3.5 * k for k in range(8)}, "Goalie"),
    "mlagents/3dball-0.x.txt": ("mlagents-console", "Mean Reward", {1000: 1.242, 2000: 1.319, 3000: 1.804,
                                                                    4000: 2.151, 5000: 3.175, 6000: 4.898}, None),
    # two trainings kept in one terminal, each run named by its captured --run-id
    "mlagents/two-trainings.log": ("mlagents-console", "Mean Reward", {
        12000: 26.737, 24000: 38.97, 36000: 42.758, 48000: 46.678, 60000: 52.859, 72000: 58.895, 84000: 54.192,
        96000: 53.598}, "ball_lr1e-3"),
    # what rsl_rl's runner prints (legged_gym, Isaac Lab): a block per learning iteration
    "rsl-rl/train.log": ("rsl-rl-console", "Mean value_function loss",
                         {it: round(0.08 * math.exp(-it / 8) + 0.005, 4) for it in range(24)}, None),
    # what Tianshou's trainers print after each epoch's test, among tqdm's progress bars
    "tianshou/train.log": ("tianshou-console", "test_reward", {
        1: 76.789891, 2: 130.367575, 3: 230.240051, 4: 252.213616, 5: 281.9696, 6: 268.529711, 7: 338.42111,
        8: 363.528157, 9: 387.222396, 10: 409.231872, 11: 446.582593, 12: 417.742348, 13: 444.315122,
        14: 412.835399, 15: 442.920741, 16: 467.12118, 17: 487.664521, 18: 458.21491, 19: 482.109789, 20: 500.0,
        21: 451.813113, 22: 475.639987, 23: 500.0, 24: 484.587296, 25: 484.656063, 26: 465.586457, 27: 500.0,
        28: 500.0, 29: 500.0, 30: 464.358695}, None),
    # what Keras' model.fit prints (verbose=1 in a terminal: each epoch's bar redrawn with \r)
    "keras/fit.log": ("keras-console", "loss", {
        1: 0.9644, 2: 0.8498, 3: 0.7691, 4: 0.6938, 5: 0.6342, 6: 0.5672, 7: 0.5157, 8: 0.4865, 9: 0.4665,
        10: 0.4569, 11: 0.4366, 12: 0.4114, 13: 0.411, 14: 0.4019, 15: 0.3935, 16: 0.3781, 17: 0.3785, 18: 0.3754,
        19: 0.365, 20: 0.348, 21: 0.3512, 22: 0.3722, 23: 0.36, 24: 0.3504, 25: 0.3476}, None),
    # what DeepMind Acme's terminal loggers print (absl's prefix): each label's values, on actor_steps
    "acme/terminal.log": ("acme-console", "evaluator/episode_return", {670: 93.0, 1902: 183.0, 3789: 276.0,
                                                                      6197: 350.0, 9220: 453.0, 12842: 500.0}, None),
    # what the MetricLogger of torchvision's reference scripts prints (DeiT, DETR, MAE ...): the
    # iteration starts again each epoch; an evaluation's summary at the epoch's last step
    "metric-logger/train.log": ("metric-logger-console", "test_acc1", {
        99: 57.165, 199: 68.749, 299: 73.916, 399: 74.11, 499: 75.357, 599: 75.588, 699: 77.142, 799: 77.899,
        899: 77.81, 999: 79.742, 1099: 76.319, 1199: 79.106}, None),
    # NetLogo's BehaviorSpace table: four runs on two threads, their rows interleaved
    "netlogo/wolf-sheep-table.csv": ("netlogo-table", "count sheep", dict(enumerate([
        100, 106, 103, 103, 102, 103, 105, 108, 112, 110, 118, 121, 114, 129, 134, 140, 138, 137, 134, 134,
        133, 133, 128, 133, 141, 144, 139, 136, 136, 137, 132, 130, 134, 140, 131, 131, 130, 124, 126, 128,
        125, 129, 127, 129, 130, 128, 127, 129, 127, 128, 136, 142, 151, 145, 133, 135, 130, 134, 130, 134,
        134, 140, 148, 136, 138, 139, 145, 149, 148, 157, 141, 135, 138, 137, 143, 142, 146, 156, 149, 148,
        147, 150, 151, 163, 164, 158, 160, 151, 146, 145, 145, 157, 158, 162, 157, 152, 145, 151, 151, 142,
        148])), "run=1"),
    # mlflow.search_runs() saved as a CSV (MLflow 3.17.2, a made-up PPO sweep of 2 learning rates
    # x 3 seeds and a failed run, logged to a local store): each finished run's last value, the
    # runs in the order they started, one setting's runs every other step
    "mlflow-runs/search_runs.csv": ("mlflow-runs", "eval/mean_reward",
                                    {2: 461.3639215094796, 4: 435.8136246223808, 6: 477.72011972795025},
                                    "lr=0.001"),
    # Mesa's batch_run saved as a CSV (Mesa 3.3.1, a Boltzmann wealth model): the model's Gini
    # once per step of each run, though batch_run repeats it on every agent's row
    "mesa/batch_run.csv": ("mesa-batch", "Gini", dict(enumerate([
        0.0, 0.375, 0.625, 0.625, 0.375, 0.375, 0.375, 0.0, 0.375, 0.375, 0.375, 0.0, 0.0, 0.375, 0.375, 0.375,
        0.625, 0.5, 0.375, 0.375, 0.375, 0.625, 0.625, 0.375, 0.5, 0.375, 0.375, 0.375, 0.375, 0.375, 0.0, 0.5,
        0.375, 0.0, 0.0, 0.0, 0.375, 0.625, 0.625, 0.625, 0.5])), "RunId=0"),
    # what Lightning's progress bar draws into a file: a step a batch, each validation once at its epoch's end
    "lightning-console/train.log": ("lightning-console", "val_loss", {20: 2.4, 40: 1.57, 60: 1.07}, None),
    # what fairseq logs (--log-format simple): train_inner every 100 updates, each epoch's validation
    "fairseq/train.log": ("fairseq-console", "valid/loss", {
        1100: 10.118, 2200: 7.709, 3300: 6.377, 4400: 5.588, 5500: 5.134, 6600: 4.876, 7700: 4.7, 8800: 4.55,
        9900: 4.538, 11000: 4.416, 12100: 4.364, 13200: 4.324}, None),
    # what Ray Tune 1.x prints: a 'Result for <trial>:' YAML block per result, two trials in turn
    "ray-console/train.log": ("ray-console", "episode_reward_mean",
                              {1: 27.25, 2: 36.5, 3: 45.75, 4: 55.0, 5: 64.25, 6: 73.5}, "PPO_CartPole-v0_0339b_00001"),
    # what a Dreamer agent's logger prints: '[step] name value / ...', DreamerV2's short numbers
    "dreamer/train.log": ("dreamer-console", "eval_return", {
        10000: 105.79, 20000: 260.76, 30000: 323.15, 40000: 509.53, 50000: 599.06, 60000: 647.8, 70000: 707.69,
        80000: 798.31, 90000: 773.88, 100000: 820.19, 110000: 867.52, 120000: 892.52, 130000: 867.43,
        140000: 918.74, 150000: 883.37, 160000: 914.03, 170000: 959.22, 180000: 938.9, 190000: 979.67,
        200000: 886.6}, None),
    # OpenMMLab's runner log (MMEngine): the iteration of the run; each validation at its epoch's end
    "mmengine/20230610_195844.log": ("mmengine-console", "coco/bbox_mAP", {
        400: 0.21, 800: 0.2782, 1200: 0.3198, 1600: 0.3527, 2000: 0.363, 2400: 0.3796, 2800: 0.3977, 3200: 0.4005,
        3600: 0.399, 4000: 0.4091, 4400: 0.4062, 4800: 0.4091}, None),
    # Sample Factory's sf_log.txt: its reports' frames, each policy's average return after them
    "sample-factory/sf_log.txt": ("sample-factory-console", "avg_episode_reward", {
        77644: -19.946, 98368: -21.0, 117148: -20.57, 135348: -21.0, 154376: -21.0, 174288: -21.0, 194092: -21.0,
        213396: -20.92, 231928: -20.732, 251196: -21.0, 269876: -20.359, 288540: -19.736, 306540: -21.0,
        326064: -21.0, 345388: -19.324, 364000: -21.0, 383248: -18.643, 403172: -19.554, 423304: -20.989,
        442748: -20.67, 462388: -19.389, 481612: -19.751, 501188: -18.88, 519712: -21.0, 539936: -20.925,
        558580: -20.919, 577124: -20.976, 596380: -19.946, 615836: -19.891, 634388: -19.371, 653620: -19.52,
        672760: -19.411, 692380: -18.473, 713304: -20.26, 734104: -19.256, 754284: -18.61, 773308: -17.555,
        793608: -16.811, 814512: -16.676, 833780: -17.888, 853268: -16.939, 872808: -15.563, 892956: -14.912,
        913824: -14.876, 933856: -14.958, 953948: -12.184, 973452: -11.18, 993768: -11.286, 1013292: -12.853,
        1032408: -12.693, 1051716: -11.556, 1070528: -9.155, 1090492: -11.104, 1110080: -9.742, 1128320: -7.173,
        1147088: -5.906, 1164792: -7.249, 1184776: -6.211, 1204232: -2.497, 1223336: -1.012, 1242100: -3.356,
        1261960: -2.027, 1280804: -1.333, 1301708: -2.276, 1320424: -0.459, 1338344: 1.01, 1358732: 2.737,
        1378828: 2.614, 1399652: 4.786, 1419400: 4.445, 1438828: 5.442, 1458264: 6.004, 1478716: 6.827,
        1499092: 7.949, 1519232: 7.189, 1539524: 7.982, 1558740: 10.821, 1578580: 9.796, 1598036: 10.047,
        1618528: 12.558, 1637912: 11.474, 1657900: 11.763, 1676184: 12.889, 1695420: 14.083, 1715140: 15.285,
        1735636: 14.185, 1755092: 14.584, 1775004: 14.347, 1793176: 15.631, 1813204: 17.997, 1833256: 15.782,
        1852840: 17.507, 1872212: 15.359, 1892656: 17.025, 1912224: 15.352, 1932116: 16.987, 1951668: 16.219,
        1970436: 16.829, 1989256: 17.999, 2009312: 16.138, 2029608: 19.516, 2049064: 17.43, 2068908: 18.069,
        2089116: 18.159, 2107752: 16.827, 2126772: 16.987, 2146668: 17.07, 2167676: 19.358, 2187516: 19.438,
        2207072: 18.766, 2226020: 18.05, 2245484: 20.002, 2263988: 21.0, 2283516: 20.406, 2304000: 17.426,
        2323296: 17.258, 2342448: 17.15, 2362104: 18.353, 2380888: 18.732, 2400080: 18.706, 2419868: 19.682,
        2438868: 19.794, 2458220: 16.301, 2475692: 19.703, 2496236: 19.591, 2515748: 20.399, 2534792: 19.593}, None),
    # what MAPPO's on-policy runners print (simple_spread): values after each progress line, at its timesteps
    "mappo/train.log": ("mappo-console", "eval_average_episode_rewards", {
        3200: -183.6448, 83200: -156.8931, 163200: -132.7614, 243200: -128.4443, 323200: -112.6462,
        403200: -110.4732, 483200: -120.5097, 563200: -102.3325, 643200: -110.9904, 723200: -115.8847,
        803200: -116.4804, 883200: -122.1462}, None),
    # tensorboardX's export_scalars_to_json, as MAPPO saves it (logs/summary.json)
    "tensorboardx/summary.json": ("tensorboardx-json", "dist_entropy",
                                  {16000 * i: round(1.6 - 0.02 * i, 4) for i in range(25)}, None),
    # d3rlpy's logs: a headerless epoch,step,value file per metric; d3rlpy_logs/ a run per folder
    "d3rlpy/d3rlpy_logs/CQL_20240301120000/environment.csv": (
        "d3rlpy-csv", "environment", {1000 * (k + 1): v for k, v in enumerate(
            [112.5, 240.25, 398.0, 512.75, 601.5, 640.0, 655.25, 648.5])}, None),
    "d3rlpy/d3rlpy_logs": ("d3rlpy-csv", "critic_loss", {1000 * (k + 1): v for k, v in enumerate(
        [9.90012, 6.71145, 5.01273, 3.92201, 3.18874, 2.76542, 2.55128, 2.43307])}, "CQL_20240302093012"),
    # marl-eval's JSON (BenchMARL, Mava): a run per (environment, task, algorithm, seed)
    # TensorBoard's CSV download (run-<run>-tag-<tag>.csv, Wall time,Step,Value): the tag is the
    # metric ("Value" before, its better side guessed from that word); a folder of them, each run a run
    "tensorboard-csv/run-PPO_1-tag-train_value_loss.csv": (
        "tensorboard-csv", "train_value_loss", {2048 * (k + 1): round(2.0 * 0.7 ** k, 4) for k in range(8)}, None),
    "tensorboard-csv": ("tensorboard-csv", "rollout_ep_rew_mean", {2048: 6.3524, 4096: 25.6214, 6144: 48.1928,
                                                                    8192: 61.586, 10240: 76.7405, 12288: 85.2657},
                        "PPO_2"),
    "marl-eval/evaluation.json": ("marl-eval", "return", {6000 * (k + 1): -44.875 + 2 * k for k in range(25)},
                                  "ippo/seed_0"),
    "sacred/metrics/7/metrics.json": ("sacred-metrics", "validation.accuracy", {100: 0.61, 200: 0.68}, None),
    "baselines/progress.csv": ("baselines-progress", "mean 100 episode reward", {1874: -3.1, 5212: -1.6}, None),
    "wandb/history.csv": ("wandb-history", "eval/reward", {1: 0.15}, None),
    "wandb/chart.csv": ("wandb-chart", "train/reward", {0: 0.11, 50: 0.34, 100: 0.41, 150: 0.45}, "ppo-s1"),
    # a hand-written loop's logging lines of name=value pairs: episode the step, an evaluation
    # line at an episode joining that episode's row
    "printed-pairs/train.log": ("printed-pairs", "eval_return", {10: -72.5, 20: -33.0, 30: -18.5}, None),
    # a loop's lines in its own words, in no format: each number named by the words before it
    "printed-template/train.log": ("printed-template", "mean reward", {2: 14.5, 4: 25.0, 6: 33.5, 8: 70.0,
                                                                           10: 104.5, 12: 160.0}, None),
    # a table printed with its columns aligned (fastai's fine_tune in a terminal: its frozen
    # epoch's table, then the rest's, each epoch counted on)
    "printed-table/fine_tune.log": ("printed-table", "valid_loss", {0: 0.534567, 1: 0.401, 2: 0.352, 3: 0.33,
                                                                    4: 0.318, 5: 0.312, 6: 0.311}, None),
    # Optuna's study.trials_dataframe(): the trial number the step; a failed, a pruned and a
    # running trial have no value
    "optuna/trials.csv": ("optuna-trials", "value",
                          {0: 0.912, 1: 0.734, 3: 0.688, 4: 0.651, 7: 0.604, 8: 0.577, 9: 0.563}, None),
    "hf/checkpoint-30": ("trainer-state", "loss", {10: 1.92, 20: 1.64}, None),
    "hf/checkpoint-30/trainer_state.json": ("trainer-state", "eval_loss", {15: 1.71}, None),
    "lightning/version_0": ("lightning-csv", "val/reward", {99: -12.4}, None),
    "lightning/version_0/metrics.csv": ("lightning-csv", "train_loss_step", {49: 0.913, 149: 0.812}, None),
    "ray/trial_00000": ("ray-result", "env_runners/episode_return_mean", {1: 18.2, 2: 25.6}, None),
    # Spinning Up's EpochLogger: tab-separated, CamelCase names, Epoch the step
    "spinup/ppo/ppo_s0/progress.txt": ("spinup-progress", "AverageEpRet", {0: -12.5, 1: -7.25, 2: -3.0}, None),
    "spinup": ("spinup-progress", "AverageEpRet", {0: -11.0, 1: -8.5, 2: -4.75}, "ppo_s1"),
    "ray/trial_00000/progress.csv": ("ray-progress", "env_runners/episode_return_mean", {1: 18.2, 2: 25.6}, None),
    "prime/metrics.jsonl": ("prime-rl", "reward/mean", {0: 0.21, 1: 0.26}, None),
    # LLaMA-Factory's trainer_log.jsonl: an evaluation line after the training line of its step
    "llamafactory/trainer_log.jsonl": ("llamafactory", "eval_loss", {15: 1.25, 30: 1.06}, None),
    "verifiers/results.jsonl": ("verifiers", "reward", {0: 1.2, 1: 0.2}, "0"),
    "mlruns/0/4f1c2ab": ("mlflow", "train/loss", {0: 1.9, 10: 1.7}, None),
    "mlruns/0/4f1c2ab/metrics/reward": ("mlflow", "reward", {0: 0.4812, 10: 0.512}, None),
    "swarm/epochs.csv": ("swarm-epochs", "toxicity_rate", {0: 0.2333, 1: 0.25}, None),
    "swarm/history.json": ("swarm-history", "quality_gap", {0: 0.5167, 1: 0.4}, None),
    "swarm/events.jsonl": ("swarm-events", "p", {0: 0.7231}, None),  # step = the interaction's position
    "swarm/sweep.csv": ("swarm-sweep", "toxicity_rate", {0: 0.29}, "1"),
}


@pytest.mark.parametrize("path", sorted(CASES))
def test_every_format_reads_to_the_same_tidy_shape(path):
    fmt, metric, expected, run = CASES[path]
    tidy = read_log(FIXTURES / path)
    assert tidy.attrs["format"] == fmt  # sniffed from the name and content, no hint given
    assert {"step", "metric", "value"} <= set(tidy.columns)
    assert set(tidy.columns) <= {"run", "step", "metric", "value", "wall_time"}
    assert pd.api.types.is_float_dtype(tidy["value"]) and tidy["value"].notna().all()
    rows = tidy[tidy["metric"] == metric]
    if run is not None:
        rows = rows[rows["run"].astype(str) == run]
    assert dict(zip(rows["step"].astype(float), rows["value"])) == pytest.approx(
        {float(k): v for k, v in expected.items()})
    # the same file with the format named explicitly gives the same frame
    if not (FIXTURES / path).is_dir():
        named = read_log(FIXTURES / path, format=fmt if fmt != "swarm-history" else "swarm-history")
        pd.testing.assert_frame_equal(named, tidy)


def test_every_listed_format_has_a_fixture_or_is_generic():
    # the generic tables, TensorBoard (tests/test_integrations.py) and the binary tables
    # (tests/test_columnar.py, written by pyarrow at test time) have their own tests
    covered = {case[0] for case in CASES.values()} | {"csv", "tsv", "jsonl", "json", "tensorboard",
                                                      "parquet", "arrow"}
    assert covered == set(LOG_FORMATS)


def test_wide_view_has_one_row_per_step_and_a_column_per_metric():
    wide = read_log(FIXTURES / "lightning" / "version_0", wide=True)
    assert wide["step"].tolist() == [0, 49, 99, 149]
    row = wide.set_index("step").loc[99]
    assert row["val/reward"] == -12.4 and row["train_loss_epoch"] == 0.901  # two sparse rows folded
    chart = read_log(FIXTURES / "wandb" / "chart.csv", wide=True)
    assert set(chart["run"]) == {"ppo-s1", "ppo-s2"}


def test_nanogpt_prints_evaluations_and_iterations_into_one_row_per_iteration(tmp_path):
    from tests.test_cli import run as cli_run

    wide = read_log(FIXTURES / "nanogpt" / "train.log", wide=True)
    assert wide.attrs["step_unit"] == "iterations"
    row = wide.set_index("step").loc[50]
    assert row["val loss"] == 2.4813 and row["loss"] == 2.4711 and row["mfu"] == 15.93
    # a fork that capitalises; a second run appended (tee -a) is a run of its own by the
    # loader's rule for a step axis that starts again; the line still being written is left out
    # (its last number may be cut short)
    text = ("Iter 0: Loss 4.3, Time 20.1ms\nIter 10: Loss 3.1, Time 20.2ms\nIter 20: Loss 2.9, Time 20.0ms\n"
            "Iter 0: Loss 4.4, Time 20.3ms\nIter 10: Loss 3.3, Time 20.1ms\nIter 20: Loss 2.")
    path = tmp_path / "train.log"
    path.write_text(text)
    runs = read_log(path, wide=True)
    assert runs["Loss"].tolist() == [4.3, 3.1, 2.9, 4.4, 3.3] and "ends mid-row" in runs.attrs["notes"][0]
    assert "holds 2 runs" in cli_run("check-convergence", path, "-m", "Loss").stderr
    # a resume from a checkpoint (back to an iteration after the start): its lines replace the old
    path.write_text("".join(f"iter {i}: loss {5 - i / 100:.2f}\n" for i in range(0, 110, 10))
                    + "".join(f"iter {i}: loss {4 - i / 100:.2f}\n" for i in range(80, 130, 10)))
    resumed = read_log(path, wide=True)
    assert resumed["step"].tolist() == list(range(0, 130, 10)) and resumed["loss"].iloc[8] == 3.2
    assert any(note.startswith("resumed at step 80 after step 100") for note in resumed.attrs["notes"])
    # build-nanogpt's and llm.c's bar-separated lines (llm.c's "(123.45 ms | 45678 tok/s)" skipped)
    path.write_text("using device: cuda\n"
                    "step     0 | loss: 10.955 | lr 6.0000e-05 | norm: 15.3 | dt: 1024.55ms | tok/sec: 511.7\n"
                    "step     1 | loss: 9.634 | lr 1.2000e-04 | norm: 6.5 | dt: 331.20ms | tok/sec: 1583.1\n")
    assert read_log(path, wide=True).columns.tolist() == ["step", "loss", "lr", "norm", "dt", "tok/sec"]
    path.write_text("step    1/74 | train loss 11.010 | norm 15.4 | lr 6.00e-04 | (123.45 ms | 45678 tok/s)\n"
                    "val loss 4.2\nstep    2/74 | train loss 9.912 | norm 9.1 | lr 6.00e-04 | (121.10 ms | 46012 tok/s)\n")
    llmc = read_log(path, wide=True)
    assert llmc.attrs["format"] == "nanogpt-console" and llmc["train loss"].tolist() == [11.01, 9.912]


@pytest.mark.parametrize("header, expected", [("_step,_runtime,reward,sample", "wandb-history"),
                                              ("step,reward,sample", "csv"), ('"reward","sample"', "csv")])
def test_a_tables_text_cells_are_never_read_as_a_printed_log(tmp_path, header, expected):
    # a W&B history (or any table of named columns) that logged a model's reasoning: its
    # quoted cells hold lines nanoGPT's sniff reads ("Step 1: Add 3 and 4" - metric "Add 3
    # and" = 4), and the file was read as nanoGPT output, three steps of made-up metrics
    rows = [([] if header.startswith('"') else [str(i)]) + (["%.1f" % (10.0 * i)] if header.startswith("_step") else [])
            + [f"{0.3 + 0.01 * i:.2f}",
            f'"Step 1: Add 3 and {i}\nStep 2: Multiply by 2\nStep 3: The answer is {2 * (3 + i)}"']
            for i in range(30)]
    path = tmp_path / "history.csv"
    path.write_text(header + "\n" + "".join(",".join(row) + "\n" for row in rows))
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == expected
    assert header.startswith('"') or wide["step"].tolist() == list(range(30))
    assert wide["reward"].tolist() == pytest.approx([0.3 + 0.01 * i for i in range(30)])
    assert not any("Multiply" in str(column) or "Add" in str(column) for column in wide.columns)
    # a printed log whose lines are commas is still one: its first line is no header of names
    printed = tmp_path / "train.log"
    printed.write_text("iter 0: loss 10.9914, time 38532.31ms, mfu -100.00%\n"
                       "iter 10: loss 9.5871, time 1092.31ms, mfu 33.01%\n")
    assert read_log(printed, wide=True).attrs["format"] == "nanogpt-console"


def test_lightnings_per_step_and_per_epoch_metrics_are_metrics_not_counts():
    """``self.log("train_loss", on_step=True, on_epoch=True)`` writes train_loss_step and
    train_loss_epoch; a name ending in _step or _epoch was "a counter", so a real Lightning
    log's every training metric was left out (and one with no validation metric refused)."""
    from swarmstats.io.columns import table_roles

    columns, _ = table_roles(read_log(FIXTURES / "lightning" / "version_0", wide=True))
    assert {"train_loss_step", "train_loss_epoch", "val/reward"} <= set(columns.metrics)
    assert columns.bookkeeping == {"lr-Adam": "a schedule: learning rate or exploration"}


def test_monitor_workers_are_merged_in_time_order():
    tidy = read_log(FIXTURES / "monitor")
    wall = tidy[tidy.metric == "r"].sort_values("step")["wall_time"].to_numpy()
    assert np.all(np.diff(wall) >= 0) and wall[0] == pytest.approx(1718000000.05 + 0.05)
    steps = tidy[tidy.metric == "timesteps"].sort_values("step")["value"].tolist()
    assert steps == [11, 41, 55, 82, 91]  # cumulative episode lengths across workers
    assert "merged" in tidy.attrs["notes"][0]


def _cli(*args) -> subprocess.CompletedProcess:
    """A swarmstats command run as the shell runs it (its stdout, stderr and exit code)."""
    return subprocess.run([sys.executable, "-m", "swarmstats.cli", *map(str, args)], capture_output=True, text=True)


def _monitor(folder, name, start, env, times):
    rows = "".join(f"{i + 1},{10 + i},{t}\n" for i, t in enumerate(times))
    (folder / name).write_text(f'#{{"t_start": {start}, "env_id": "{env}"}}\nr,l,t\n{rows}')


def test_monitor_files_of_other_runs_are_other_runs(tmp_path):
    # two workers that ran together, a later run of the same environment, and a run of another
    # environment at the same time: three runs, each numbered from episode 0
    _monitor(tmp_path, "0.monitor.csv", 1000.0, "CartPole-v1", [1.0, 2.0, 3.0])
    _monitor(tmp_path, "1.monitor.csv", 1000.4, "CartPole-v1", [1.5, 2.5])
    _monitor(tmp_path, "later.monitor.csv", 5000.0, "CartPole-v1", [1.0, 2.0])
    _monitor(tmp_path, "other.monitor.csv", 1000.2, "Pendulum-v1", [1.0, 2.0, 3.0, 4.0])
    wide = read_log(tmp_path, wide=True)
    sizes = wide.groupby("run", sort=False).size().to_dict()
    assert sizes == {"0": 5, "other": 4, "later": 2}
    assert (wide.groupby("run")["step"].min() == 0).all()
    assert wide.loc[wide["run"] == "0", "timesteps"].tolist() == [10, 20, 31, 42, 54]
    assert "3 runs in 4 monitor files" in wide.attrs["notes"][0]
    # workers alone stay one run, merged by time
    for name in ("later.monitor.csv", "other.monitor.csv"):
        (tmp_path / name).unlink()
    merged = read_log(tmp_path, wide=True)
    assert "run" not in merged.columns and len(merged) == 5 and "merged" in merged.attrs["notes"][0]


def _runs_of(folder, runs):
    rng = np.random.default_rng(0)
    for name, start, env, level in runs:
        rows = "".join(f"{v:.3f},10,{i + 1}\n" for i, v in enumerate(level + rng.normal(size=400)))
        (folder / f"{name}.monitor.csv").write_text(f'#{{"t_start": {start}, "env_id": "{env}"}}\nr,l,t\n{rows}')


def test_runs_of_other_environments_are_never_pooled(tmp_path):
    # two CartPole runs are replicates (pooled, with R-hat); the Pendulum run is judged alone
    from tests.test_cli import run
    _runs_of(tmp_path, [("run_1", 1000.0, "CartPole-v1", 0), ("run_2", 9000.0, "CartPole-v1", 0),
                        ("run_3", 1000.0, "Pendulum-v1", 0)])
    wide = read_log(tmp_path, wide=True)
    assert wide.attrs["run_configs"] == {"run_1": "CartPole-v1", "run_3": "Pendulum-v1", "run_2": "CartPole-v1"}
    result = run("check-convergence", tmp_path, "-m", "r", "--format", "json")
    rows = {r["name"]: r for r in __import__("json").loads(result.stdout)["results"]}
    assert set(rows) == {"r [CartPole-v1]", "r [Pendulum-v1]"}
    assert len(rows["r [CartPole-v1]"]["runs"]) == 2 and "runs" not in rows["r [Pendulum-v1]"]
    # a setting's seeds on two environments: pooled per environment
    shutil.rmtree(tmp_path)
    tmp_path.mkdir()
    _runs_of(tmp_path, [("ppo_1", 1000.0, "CartPole-v1", 0), ("ppo_2", 9000.0, "CartPole-v1", 0),
                        ("ppo_3", 1000.0, "Pendulum-v1", 0), ("sac_1", 20000.0, "Pendulum-v1", 0)])
    result = run("check-convergence", tmp_path, "-m", "r", "--format", "json")
    names = [r["name"] for r in __import__("json").loads(result.stdout)["results"]]
    assert sorted(names) == ["r [ppo on CartPole-v1]", "r [ppo on Pendulum-v1]", "r [run=sac_1]"], names


def test_two_algorithms_on_one_environment_are_not_replicates(tmp_path):
    # a2c-CartPole-v1 and dqn-CartPole-v1 (the real corpus's sb3 folder holds both) were pooled
    # as seeds of one setting: "insufficient_data over 2 runs ... the runs disagree: R-hat =
    # 2.207", and two converged algorithms at different levels failed the gate
    from tests.test_cli import run
    _runs_of(tmp_path, [("a2c-CartPole-v1", 1000.0, "CartPole-v1", 0),
                        ("dqn-CartPole-v1", 9000.0, "CartPole-v1", 20)])
    result = run("check-convergence", tmp_path, "-m", "r", "--format", "json")
    results = __import__("json").loads(result.stdout)["results"]
    assert [r["name"] for r in results] == ["r [run=a2c-CartPole-v1]", "r [run=dqn-CartPole-v1]"]
    assert all(r["verdict"] == "converged" for r in results) and result.returncode == 0
    # their seeds, numbered, are replicates within each algorithm
    shutil.rmtree(tmp_path)
    tmp_path.mkdir()
    _runs_of(tmp_path, [("a2c-CartPole-v1_1", 1000.0, "CartPole-v1", 0), ("a2c-CartPole-v1_2", 9000.0, "CartPole-v1", 0),
                        ("dqn-CartPole-v1_1", 20000.0, "CartPole-v1", 20),
                        ("dqn-CartPole-v1_2", 30000.0, "CartPole-v1", 20)])
    result = run("check-convergence", tmp_path, "-m", "r", "--format", "json")
    results = __import__("json").loads(result.stdout)["results"]
    assert [(r["name"], len(r["runs"])) for r in results] == [("r [a2c-CartPole-v1]", 2), ("r [dqn-CartPole-v1]", 2)]


def test_a_zoo_algorithm_folder_reads_one_run_per_subfolder(tmp_path):
    # rl-baselines3-zoo writes logs/<algo>/<env>_<n>/<worker>.monitor.csv; the algorithm's folder
    # was "a directory with no log swarmstats recognises".  Real files from rl-trained-agents.
    from tests.test_cli import run
    real = Path(__file__).parent / "fixtures" / "real" / "sb3"
    dqn = tmp_path / "dqn"
    for env in ("CartPole-v1", "Acrobot-v1", "MountainCar-v0"):
        (dqn / f"{env}_1").mkdir(parents=True)
        shutil.copy(real / f"dqn-{env}.monitor.csv", dqn / f"{env}_1" / "0.monitor.csv")
    wide = read_log(dqn, wide=True)
    assert wide.groupby("run").size().to_dict() == {"Acrobot-v1_1": 1011, "CartPole-v1_1": 500, "MountainCar-v0_1": 766}
    assert "one run per folder" in wide.attrs["notes"][0]
    result = run("check-convergence", dqn, "-m", "r", "--format", "json")
    names = [r["name"] for r in __import__("json").loads(result.stdout)["results"]]
    assert sorted(names) == ["r [run=Acrobot-v1_1]", "r [run=CartPole-v1_1]", "r [run=MountainCar-v0_1]"]
    # a run's four workers stay one run, and two numbered runs of one environment are replicates,
    # though their files started at the same times (here, copies): the folder says which is which
    ppo = tmp_path / "ppo"
    for folder in ("Pendulum-v1_1", "Pendulum-v1_2"):
        shutil.copytree(real / "ppo-Pendulum-v1", ppo / folder)
    assert read_log(ppo, wide=True).groupby("run").size().tolist() == [len(read_log(real / "ppo-Pendulum-v1", wide=True))] * 2
    result = run("check-convergence", ppo, "-m", "r", "--format", "json")
    (pooled,) = __import__("json").loads(result.stdout)["results"]
    assert pooled["name"] == "r" and len(pooled["runs"]) == 2  # one setting: its two seeds summarised together


def test_a_resumed_training_appended_to_its_monitor_file_keeps_the_order_written(tmp_path):
    # SB3's Monitor(override_existing=False) appends a resumed run's episodes without a header,
    # t counting again from the new session's start: sorted by t_start + t, the 300 resumed
    # episodes were put among the first ones (the run read -500, -500, -500, -500, -347, -347 ...)
    source = Path(__file__).parent / "fixtures" / "real" / "sb3" / "dqn-Acrobot-v1.monitor.csv"
    lines = source.read_bytes().splitlines(keepends=True)
    path = tmp_path / "0.monitor.csv"
    path.write_bytes(b"".join(lines) + b"".join(lines[2:302]))
    whole = read_log(source, wide=True)
    wide = read_log(path, wide=True)
    np.testing.assert_array_equal(wide["r"], np.concatenate([whole["r"], whole["r"][:300]]))
    assert wide["wall_time"].is_monotonic_increasing and wide["step"].tolist() == list(range(1311))
    assert any("2 sessions appended" in note for note in wide.attrs["notes"])
    # a clock set back a little is not a new session: the order and the count stand
    rows = ["#{\"t_start\": 100.0}\n", "r,l,t\n", "1,5,10.0\n", "2,5,20.0\n", "3,5,19.5\n", "4,5,30.0\n"]
    path.write_text("".join(rows))
    wide = read_log(path, wide=True)
    assert wide["r"].tolist() == [1, 2, 3, 4] and wide["wall_time"].is_monotonic_increasing
    assert not any("sessions" in note for note in wide.attrs["notes"])


def test_a_folder_of_unrelated_real_monitor_files_is_four_runs_not_one():
    # four experiments (HopperBullet, Breakout, Humanoid, Hopper; started months apart) were
    # merged into one run of 30,071 "episodes"
    wide = read_log(Path(__file__).parent / "fixtures" / "real" / "sb3-long", wide=True)
    sizes = wide.groupby("run").size().to_dict()
    assert sizes == {"ddpg-HopperBulletEnv-v0": 6593, "ppo-Hopper-v3": 10779,
                     "qrdqn-Breakout-v4": 7220, "td3-Humanoid-v3": 5479}
    # four environments: no R-hat across them, one verdict each
    from tests.test_cli import run
    result = run("check-convergence", Path(__file__).parent / "fixtures" / "real" / "sb3-long", "-m", "r")
    assert "R-hat" not in result.stdout and "r [run=td3-Humanoid-v3]" in result.stdout


REAL = Path(__file__).resolve().parent / "fixtures" / "real"


@pytest.mark.parametrize("path", sorted(REAL.rglob("*.csv")) + sorted(FIXTURES.rglob("*.csv")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_log_of_plain_numbers_reads_as_pandas_reads_it(path, monkeypatch):
    # monitor, progress and Lightning files of plain numbers skip pandas' ordinary read
    # (plain_csv): by numpy when small, by pandas told there is no header when larger
    from swarmstats.io import plain_csv

    def both_views():
        try:
            return [read_log(path, wide=True), read_log(path)]
        except InputError as exc:  # a file refused is refused the same way
            return str(exc)

    fast = both_views()
    monkeypatch.setattr(plain_csv, "NUMPY_TABLE_BYTES", -1)  # every plain file through pandas, headless
    headless = both_views()
    monkeypatch.setattr(plain_csv, "PLAIN_TABLE_BYTES", -1)  # every file through the ordinary read
    ordinary = both_views()
    for other in (headless, fast):
        if isinstance(other, str) or isinstance(ordinary, str):
            assert other == ordinary
            continue
        for got, expected in zip(other, ordinary):
            pd.testing.assert_frame_equal(got, expected, check_exact=True)
            assert got.attrs == expected.attrs


@pytest.mark.parametrize("rows, expected", [
    ("1.5,2,3\r\n2.5,3,4\r\n", {"r": [1.5, 2.5], "l": [2.0, 3.0]}),             # Windows line ends
    ("1.5,2,3\n2.5,,4\n", {"r": [1.5, 2.5], "l": [2.0, np.nan]}),                 # an empty cell
    ("1.5,2,3\n2.5,3\n", {"r": [1.5, 2.5], "l": [2.0, 3.0]}),                     # a short row
    ('1.5,2,3\n"2.5",3,4\n', {"r": [1.5, 2.5], "l": [2.0, 3.0]}),                 # a quoted number
])
def test_a_monitor_file_numpy_cannot_read_goes_to_pandas(tmp_path, rows, expected):
    path = tmp_path / "0.monitor.csv"
    path.write_bytes(('#{"t_start": 1.0, "env_id": "E"}\nr,l,t\n' + rows).encode())
    wide = read_log(path, wide=True)
    for column, values in expected.items():
        np.testing.assert_array_equal(wide[column].to_numpy(), values)


@pytest.mark.parametrize("source", [np.ones(3), [0.1, 0.2], {"reward": [1, 2]}, 5, None])
def test_values_in_memory_handed_to_a_reader_are_named_not_a_traceback(source):
    # an array raised numpy's "truth value of an array ... is ambiguous", a list a TypeError
    from swarmstats import read_table
    for reader in (read_log, read_table):
        with pytest.raises(InputError, match="expected a file path, '-' for stdin or an open file, got"):
            reader(source)


def test_a_byte_that_is_not_utf8_past_a_monitor_files_head_is_named_not_a_traceback(tmp_path):
    # the sniffer decodes the first 64 KiB; pandas parses the rest from bytes.  The bad byte
    # follows 106,917 bytes of header and rows and the 4 of "1.0,"
    rows = "".join(f"{i % 7}.5,10,{i + 1}\n" for i in range(9000))
    path = tmp_path / "0.monitor.csv"
    path.write_bytes(('#{"t_start": 1.0}\nr,l,t\n' + rows).encode() + b"1.0,\xe9,3\n")
    with pytest.raises(InputError, match=r"not UTF-8 text \(byte 106921\)"):
        read_log(path)


def test_a_monitor_file_in_a_folder_with_a_byte_that_is_not_utf8_is_named(tmp_path):
    # a folder's monitor files skip the sniffer's decoding: this was a UnicodeDecodeError
    (tmp_path / "0.monitor.csv").write_bytes(b'#{"t_start": 1.0, "env_id": "\xe9"}\nr,l,t\n1,2,3\n')
    with pytest.raises(InputError, match=r"0.monitor.csv is not UTF-8 text \(byte 29\)"):
        read_log(tmp_path)


def test_a_monitor_file_with_a_header_and_no_row_has_no_finished_episode(tmp_path):
    # was "the monitor column(s) r, l, t hold no numbers"
    (tmp_path / "0.monitor.csv").write_text('#{"t_start": 1.0}\nr,l,t\n')
    with pytest.raises(InputError, match="no finished episode"):
        read_log(tmp_path / "0.monitor.csv")
    # beside a worker that has episodes, it is a worker that has not finished one yet
    (tmp_path / "1.monitor.csv").write_text('#{"t_start": 1.5}\nr,l,t\n1.0,10,2.0\n')
    assert read_log(tmp_path, wide=True)["r"].tolist() == [1.0]


def test_a_monitor_files_success_flag_is_read_as_one_and_zero(tmp_path):
    # SB3's Monitor(info_keywords=("is_success",)) writes True/False; it was left out without a
    # word, and with it the success rate of a goal-conditioned run.  A flag that names no
    # outcome (TimeLimit.truncated) stays out, as before.
    path = tmp_path / "0.monitor.csv"
    path.write_text('#{"t_start": 1.0}\nr,l,t,is_success,TimeLimit.truncated\n'
                    '1.5,2,3,True,False\n2.5,3,4,False,True\n3.5,3,5,,False\n')
    wide = read_log(path, wide=True)
    np.testing.assert_array_equal(wide["is_success"], [1.0, 0.0, np.nan])
    assert "TimeLimit.truncated" not in wide.columns
    tidy = read_log(path)
    assert tidy.loc[tidy["metric"] == "is_success", "value"].tolist() == [1.0, 0.0]


def test_check_convergence_judges_a_monitor_files_success_rate():
    path = FIXTURES / "sb3-success" / "0.monitor.csv"  # made up, in the shape of a FetchReach run
    flags = [line.endswith("True") for line in path.read_text().splitlines()[2:]]
    result = _cli("check-convergence", path, "--format", "json")
    assert result.returncode == 1, result.stderr  # r is still climbing
    judged = {r["name"]: r for r in json.loads(result.stdout)["results"]}
    assert judged["is_success"]["n"] == len(flags) == 60
    assert judged["is_success"]["mean"] == pytest.approx(np.mean(flags[judged["is_success"]["warmup"]:]), rel=1e-12)


@pytest.mark.parametrize("name, text", [
    ("flags.csv", "step,reward,solved,is_best\n" + "".join(
        f"{i},{i % 7 * 0.1:.1f},{'' if i % 5 == 4 else i % 3 != 0},{i == 10}\n" for i in range(40))),
    ("flags.jsonl", "".join(json.dumps({"step": i, "reward": i % 7 * 0.1, "is_best": i == 10,
                                        **({} if i % 5 == 4 else {"solved": i % 3 != 0})}) + "\n"
                            for i in range(40))),
])
def test_a_tables_outcome_flag_is_a_metric_and_other_flags_are_left_out_with_a_reason(tmp_path, name, text):
    from swarmstats.io.columns import classify_columns
    from swarmstats.io.metric import select_metric

    path = tmp_path / name
    path.write_text(text)
    wide = read_log(path, wide=True)
    columns = classify_columns(wide)
    assert "solved" in columns.metrics and columns.bookkeeping["is_best"] == "a True/False flag"
    solved = select_metric(wide, "solved", step="step")  # missing cells dropped, True/False as 1/0
    expected = [float(i % 3 != 0) for i in range(40) if i % 5 != 4]
    assert solved.tolist() == expected and len(solved) == 32
    assert select_metric(wide, "is_best", step="step").sum() == 1.0  # named, a flag is judged
    tidy = read_log(path)
    assert tidy.loc[tidy["metric"] == "solved", "value"].tolist() == expected


def test_trainer_state_skips_the_summary_and_accepts_none():
    tidy = read_log(FIXTURES / "hf" / "checkpoint-30")
    assert 30 not in set(tidy["step"]) and "train_loss" not in set(tidy["metric"])
    assert "reward" not in set(tidy["metric"])  # logged as None (TRL does): missing, not zero


def test_trainer_state_entries_without_a_step_are_placed_at_their_epoch_or_said_left_out(tmp_path):
    # the shape of a public continued-pretraining run's trainer_state.json: its script appended
    # trainer.predict()'s metrics with the epoch alone, after each epoch's eval entry; dropped as
    # rows without a step, every predict_* metric vanished with no word
    history = []
    for epoch, step in ((1.0, 549), (2.0, 1098), (3.0, 1647)):
        history.append({"epoch": epoch - 0.09, "loss": 1.0 / epoch, "step": step - 49})
        history.append({"epoch": epoch, "eval_loss": 0.6 / epoch, "step": step})
        history.append({"epoch": epoch, "predict_loss": 0.5 / epoch, "predict_rouge-1": 40 + epoch})
    history.append({"epoch": 3.5, "predict_loss": 0.1})  # no step at that epoch: nowhere to go
    history.append({"epoch": 3.5, "step": 1647, "total_flos": 1.0, "train_runtime": 9.0,
                    "train_loss": 0.4, "train_samples_per_second": 1.0})
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps({"global_step": 1647, "log_history": history}))
    wide = read_log(path, wide=True)
    predicted = wide.dropna(subset=["predict_loss"])
    assert predicted["step"].tolist() == [549, 1098, 1647]
    assert predicted["predict_loss"].tolist() == pytest.approx([0.5, 0.25, 0.5 / 3])
    assert predicted["eval_loss"].tolist() == pytest.approx([0.6, 0.3, 0.2])  # beside, not over
    notes = wide.attrs["notes"]
    assert ("3 log_history entries without a 'step' (predict_loss, predict_rouge-1) taken at the step "
            "logged just before each, at the same epoch") in notes
    assert ("1 log_history entry without a 'step' (predict_loss) left out: no step was logged at its "
            "epoch (3.5)") in notes


def test_trainer_state_a_stepless_entry_never_overwrites_the_entry_it_follows(tmp_path):
    history = [{"epoch": 1.0, "eval_loss": 0.6, "step": 10}, {"epoch": 1.0, "eval_loss": 0.1}]
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps({"log_history": history}))
    wide = read_log(path, wide=True)
    assert wide["eval_loss"].tolist() == [0.6]
    assert ("1 log_history entry without a 'step' (eval_loss) left out: it repeats metrics of the entry "
            "before it, at the same epoch") in wide.attrs["notes"]


def test_wandb_runs_table_is_refused_clearly():
    with pytest.raises(InputError, match="runs table"):
        read_log(FIXTURES / "wandb" / "runs.csv")


#: what ``mlflow.search_runs(...).to_csv(index=False)`` writes: one row per run, each metric's last value
SEARCH_RUNS = ("run_id,experiment_id,status,artifact_uri,start_time,end_time,metrics.loss,metrics.accuracy,"
               "params.lr,params.batch_size,tags.mlflow.runName\n"
               + "".join(f"{i:032x},1,FINISHED,file:///mlruns/1/{i:032x}/artifacts,2024-05-01 10:0{i}:00+00:00,"
                         f"2024-05-01 10:3{i}:00+00:00,0.{30 + i},0.{80 + i},{0.001 * (1 + i % 2)},64,run-{i}\n"
                         for i in range(6)))


def test_optuna_trials_leave_out_the_sampled_hyperparameters_and_unfinished_trials(capsys):
    """A trials table read as a generic one judged the hyperparameters each trial sampled
    (params_n_layers) as metrics, "higher is better", and pooled a pruned trial's intermediate
    value with the finished trials' objective.  Only what a trial measured is a metric, only
    finished trials have values, each note says why, and trials are the step's unit."""
    from swarmstats.cli import main

    path = FIXTURES / "optuna" / "trials.csv"
    wide = read_log(path, wide=True)
    assert wide.columns.tolist() == ["step", "value", "user_attrs_accuracy", "wall_time"]
    assert wide.attrs["step_unit"] == "trials"
    assert np.isnan(wide["value"].iloc[[2, 5, 6]]).all() and wide["value"].iloc[7] == 0.604
    notes = " | ".join(wide.attrs["notes"])
    assert "left out: params_lr, params_n_layers (the hyperparameters each trial sampled" in notes
    assert "3 of 10 trials did not complete (FAIL 1, PRUNED 1, RUNNING 1)" in notes
    assert "direction='maximize'" in notes and "--better" in notes
    assert wide["wall_time"].iloc[0] == pd.Timestamp("2024-05-01 10:02:30", tz="UTC").timestamp()
    assert main(["check-convergence", str(path), "--better", "lower"]) == 1  # 7 finished trials: too few
    out = capsys.readouterr().out
    assert "slope/100 trials" in out and "params_n_layers" not in out and "insufficient_data" in out


def test_an_optuna_table_without_a_numeric_objective_is_refused(tmp_path):
    path = tmp_path / "trials.csv"
    path.write_text("number,value,datetime_start,state\n0,oops,2024-05-01 10:00:00,COMPLETE\n")
    with pytest.raises(InputError, match="Optuna trials table without a number"):
        read_log(path)


@pytest.mark.parametrize("file, payload, said", [
    ("all_results.json", {"epoch": 3.0, "eval_loss": 0.27, "train_runtime": 1234.5},
     "a Hugging Face Trainer's results summary, each metric's final value (epoch=3.0, eval_loss=0.27, "
     "train_runtime=1234.5), not a series; read the trainer_state.json"),
    ("metrics.json", {"eval_loss": 0.27, "eval_runtime": 12.3}, "Hugging Face Trainer's results summary"),
    ("final.json", {"reward": 0.9, "seed": 1}, "holds one value per key (reward=0.9, seed=1), not a series"),
    ("odd.json", {"reward": [0.1, 0.2], "seed": 1}, "expected a JSON list of records"),
])
def test_a_json_object_of_final_values_is_said_to_be_a_summary(tmp_path, file, payload, said):
    """trainer.save_metrics() writes all_results.json, one final value per key, beside the
    Trainer's output; it read "expected a JSON list of records".  Such a file is now said to be a
    summary, with the file that holds every logged step."""
    path = tmp_path / file
    path.write_text(json.dumps(payload))
    with pytest.raises(InputError) as raised:
        read_log(path)
    assert said in str(raised.value)


def test_printed_name_value_records_are_read_by_read_log_and_watch_alike(capsys):
    """``logging.info(f"episode={ep}, return={ret:.1f}, ...")`` saved with tee: read as a table,
    the comma of logging's time made the first line a CSV header ("the x-axis column
    '2024-05-01 10:00:00' is not numeric"), and watch followed garbage.  Each line holding a step
    key and another pair is a record; the configuration line (pairs, no step) and the rest are
    skipped; watch follows the same rows and judges them as check-convergence does."""
    from swarmstats.cli import main
    from swarmstats.io.formats.printed_pairs import parse_line
    from swarmstats.io.written_nan import is_written

    path = FIXTURES / "printed-pairs" / "train.log"
    wide = read_log(path, wide=True)
    assert wide.columns.tolist() == ["step", "return", "length", "epsilon", "time", "eval_return"]
    assert wide.attrs["step_unit"] == "episodes" and len(wide) == 30
    assert wide.attrs["notes"] == ["30 printed record(s) of name=value pairs, step = episode; 4 other line(s) skipped"]
    parsed = parse_line("step=3 loss=nan acc=97.5% dt=0.2s")
    assert list(parsed) == ["step", "loss", "acc", "dt"] and parsed["acc"] == 97.5
    assert is_written(np.array([parsed["loss"]]))[0]  # a printed nan: the run diverged, as in any log
    assert parse_line("global_step=10 step=4 loss=0.1") == {"global_step": 10.0, "step": 4.0, "loss": 0.1}
    assert read_log(path.parent / "train.log", wide=True).equals(wide)
    assert main(["check-convergence", str(path), "-m", "return", "--format", "json"]) in (0, 1)
    checked = json.loads(capsys.readouterr().out)
    assert main(["watch", str(path), "-m", "return", "--once", "--format", "json"]) in (0, 1)
    out = capsys.readouterr().out
    watched = json.loads(out[out.index('{\n  "schema_version"'):])["report"]["metrics"]["return"]
    assert checked["input"]["format"] == "printed-pairs"
    assert watched["verdict"] == checked["results"][0]["verdict"] and watched["n"] == checked["results"][0]["n"] == 30


@pytest.mark.parametrize("lines, axis, unit, columns", [
    # torchtitan-style, after a rank tag
    ([f"[rank0] Step {s} | Loss: {3.0 - 0.05 * s:.2f} | LR: 6.00e-06 | Tokens/s: {8000 + s}" for s in range(1, 31)],
     "Step", "steps", ["step", "Loss", "LR", "Tokens/s"]),
    # torchtune's disk log: name:value fields apart by spaces after the step's "|"
    ([f"Step {s} | loss:{3.0 - 0.05 * s:.4f} lr:2e-05 tokens_per_second_per_gpu:{1200 + s}.5" for s in range(1, 31)],
     "Step", "steps", ["step", "loss", "lr", "tokens_per_second_per_gpu"]),
    # a tutorial's epochs, out of a total, named in words
    ([f"2024-05-01 10:00:{s:02d} INFO Epoch {s}/30 | Train Loss: {3.0 - 0.05 * s:.4f} | Val Acc: {0.5 + s / 100:.3f}"
      for s in range(1, 31)], "Epoch", "epochs", ["step", "Train Loss", "Val Acc"]),
])
def test_records_printed_with_a_pipe_after_their_step_are_read_by_read_log_and_watch(tmp_path, lines, axis, unit,
                                                                                    columns):
    """``print(f"Step {s} | loss: {loss:.4f} | lr: {lr:.2e}")`` and its kin (torchtitan behind a
    ``[rank0]`` tag, torchtune's ``loss:1.23 lr:2e-05`` fields, ``Epoch 3/10 | Train Loss: ...``)
    were "no numeric metric column (columns: Step 1 | loss:...)" or "not valid JSON"."""
    path = tmp_path / "train.log"
    path.write_text("starting\n" + "\n".join(lines) + "\n")
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == "printed-pairs" and wide.columns.tolist() == columns
    assert wide["step"].tolist() == list(range(1, 31)) and wide.attrs["step_unit"] == unit
    assert wide[columns[1]].tolist() == [pytest.approx(3.0 - 0.05 * s) for s in range(1, 31)]
    assert wide.attrs["notes"] == [f"30 printed record(s) of '{axis} N | name: value | ...' fields, step = {axis}; "
                                   "1 other line(s) skipped"]
    done = cli("check-convergence", path, "--format", "json")
    assert [row["name"] for row in json.loads(done.stdout)["results"]] == [c for c in columns[1:] if c not in (
        "LR", "lr", "Tokens/s", "tokens_per_second_per_gpu")]  # a schedule and a throughput left out
    watched = watched_metrics(path)
    assert watched[columns[1]]["n"] == 30


def test_a_configuration_printed_as_a_repr_is_no_record_at_its_epoch_count(tmp_path):
    """argparse's Namespace printed before training holds ``epoch=30``: read as a record it was
    a first row at epoch 30 (lr and batch_size its values), then the log's epochs went back to 1."""
    from swarmstats.io.formats.printed_pairs import parse_line

    path = tmp_path / "train.log"
    path.write_text("Namespace(task='CartPole-v1', seed=1, epoch=30, lr=0.001, batch_size=64)\n"
                    + "".join(f"epoch={e} loss={1.0 - e / 100:.2f} reward={e / 10:.1f}\n" for e in range(1, 31)))
    for wide in (read_log(path, wide=True), read_log(path, wide=True, format="printed-pairs")):
        assert wide.columns.tolist() == ["step", "loss", "reward"] and wide["step"].tolist() == list(range(1, 31))
        assert wide.attrs["notes"] == ["30 printed record(s) of name=value pairs, step = epoch; 1 other line(s) skipped"]
    out = cli("watch", path, "--once", "--format", "json").stdout
    assert set(json.loads(out[out.index('{\n  "schema_version"'):])["report"]["metrics"]) == {"loss", "reward"}
    for line in ("Config(epoch=3, lr=0.1)", "  dict(step=5, loss=0.3)"):
        assert parse_line(line) is None
    # a record that names a call in words stays one
    assert parse_line("eval (episode=3) reward=5.0") == {"episode": 3.0, "reward": 5.0}


@pytest.mark.parametrize("line", ["| rollout/ep_rew_mean | 21.3 |", "|    total_timesteps      | 2048     |",
                                  "Step 5 of 10 | loss: 0.3", "step | loss | acc", "2024-05-01 10:00:00 | ok: 1"])
def test_a_line_with_a_pipe_but_no_step_first_is_no_record(line):
    from swarmstats.io.formats.printed_pairs import parse_line

    assert parse_line(line) is None


def _loss(s):
    return round(3.0 - 0.05 * s + 0.01 * (s % 3), 4)


@pytest.mark.parametrize("lines, columns, steps, unit, note", [
    # the pytorch-tutorial loop: a count within each epoch out of its total
    ([f"Epoch [{e}/5], Step [{s}/600], Loss: {_loss(6 * e + s // 100):.4f}" for e in range(1, 6) for s in range(100, 700, 100)],
     ["step", "Epoch", "Loss"], [600 * (e - 1) + s for e in range(1, 6) for s in range(100, 700, 100)], "steps",
     "30 printed record(s) of 'Epoch E, Step n/600, name: value, ...' fields, step = (Epoch - 1) x 600 + Step, "
     "which starts again each epoch; 1 other line(s) skipped"),
    ([f"Epoch {e}/30, Loss: {_loss(e):.4f}, Accuracy: {0.5 + e / 100:.3f}" for e in range(1, 31)],
     ["step", "Loss", "Accuracy"], list(range(1, 31)), "epochs",
     "30 printed record(s) of 'Epoch N, name: value, ...' fields, step = Epoch; 1 other line(s) skipped"),
    ([f"INFO:root:epoch {e}: loss = {_loss(e):.4f}, acc = {50 + e}%" for e in range(1, 31)],
     ["step", "loss", "acc"], list(range(1, 31)), "epochs",
     "30 printed record(s) of 'epoch N, name: value, ...' fields, step = epoch; 1 other line(s) skipped"),
    ([f"[Epoch {e}/30] loss: {_loss(e):.4f} acc: {0.5 + e / 100:.3f}" for e in range(1, 31)],
     ["step", "loss", "acc"], list(range(1, 31)), "epochs",
     "30 printed record(s) of 'Epoch N, name: value, ...' fields, step = Epoch; 1 other line(s) skipped"),
    # Python's logging with its time and level before the message, "%(asctime)s %(levelname)s:
    # %(message)s" (a crystal-graph network's 300-epoch log printed so): "malformed rows: the rows
    # hold more fields than the header names (1)" before, as a CSV
    ([f"2025-07-07 13:{e:02d}:26.649 INFO: Epoch [{e:03d}/30] - Train Loss: {_loss(e):.5f}, "
      f"Valid Loss: {_loss(e) + 0.3:.5f}, LR: [0.001]" for e in range(1, 31)],
     ["step", "Train Loss", "Valid Loss"], list(range(1, 31)), "epochs",
     "30 printed record(s) of 'Epoch N, name: value, ...' fields, step = Epoch; 1 other line(s) skipped"),
    ([f"Training Info: Epoch [{e}/3], Step [{i}/600] Avg_training_loss: {_loss(10 * e + i // 100):.4f}"
      for e in range(1, 4) for i in range(100, 700, 100)],
     ["step", "Epoch", "Avg_training_loss"], [600 * (e - 1) + i for e in range(1, 4) for i in range(100, 700, 100)],
     "steps", "18 printed record(s) of 'Epoch E, Step n/600, name: value, ...' fields, step = (Epoch - 1) x 600 + "
     "Step, which starts again each epoch; 1 other line(s) skipped"),
    # the level without a colon ("%(asctime)s %(levelname)s %(message)s"; rich's handler)
    ([f"2024-01-01 12:{e:02d}:00,123 INFO Epoch {e}, loss: {_loss(e):.4f}, acc: {0.5 + e / 100:.3f}"
      for e in range(1, 31)],
     ["step", "loss", "acc"], list(range(1, 31)), "epochs",
     "30 printed record(s) of 'Epoch N, name: value, ...' fields, step = Epoch; 1 other line(s) skipped"),
    # a loop that prints its epochs counted from 0: step 0 x 600 + count (it read -500 before)
    ([f"Epoch [{e}/3], Step [{i}/600], Loss: {_loss(10 * e + i // 100):.4f}" for e in range(3) for i in range(100, 700, 100)],
     ["step", "Epoch", "Loss"], [600 * e + i for e in range(3) for i in range(100, 700, 100)], "steps",
     "18 printed record(s) of 'Epoch E, Step n/600, name: value, ...' fields, step = Epoch x 600 + Step, which "
     "starts again each epoch; 1 other line(s) skipped"),
])
def test_records_listing_their_fields_after_their_step_are_read_by_read_log_and_watch(tmp_path, lines, columns, steps,
                                                                                     unit, note):
    """What a hand-written loop prints most often - ``print(f"Epoch [{e}/{E}], Step [{i}/{n}], Loss:
    {loss:.4f}")`` - read as a CSV: "no numeric metric column (columns: Epoch [1/5], Step [100/600],
    Loss: 0.1344, run, config of run)"; ``Epoch 1/20, Loss: ...`` and ``epoch 1: loss = ...`` likewise.
    A count within the epoch out of its total makes the step, since it starts again each epoch
    (read as the step, each epoch was a run of its own)."""
    path = tmp_path / "train.log"
    path.write_text("Using device: cuda\n" + "\n".join(lines) + "\n")
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == "printed-pairs" and wide.columns.tolist() == columns
    assert wide["step"].tolist() == steps and wide.attrs["step_unit"] == unit
    assert wide.attrs["notes"] == [note]
    metric = columns[-2] if columns[-1] in ("Accuracy", "acc") else columns[-1]
    done = cli("check-convergence", path, "--format", "json")
    checked = {row["name"]: row for row in json.loads(done.stdout)["results"]}
    assert "Epoch" not in checked and checked[metric]["n"] == len(steps)  # the epoch is a counter
    watched = watched_metrics(path)
    assert watched[metric]["n"] == len(steps)


def test_pytorchs_mnist_example_is_read_with_its_test_lines_at_each_epochs_end(tmp_path):
    """PyTorch's MNIST example prints ``Train Epoch: 1 [640/60000 (1%)]\tLoss: 0.52`` (a count of
    samples within the epoch) and, after each epoch, ``Test set: Average loss: 0.0345, Accuracy:
    9890/10000 (99%)``, a line with no step that was skipped: the accuracy a reader looks for."""
    path = tmp_path / "mnist.log"
    path.write_text("Using device: cuda\n" + "".join(
        "".join(f"Train Epoch: {e} [{n}/60000 ({100 * n // 60000}%)]\tLoss: {_loss(10 * e + n // 6400):.6f}\n"
                for n in range(0, 60000, 6400))
        + f"\nTest set: Average loss: 0.0{5 - e}00, Accuracy: {9800 + 30 * e}/10000 ({98 + e // 3}%)\n\n"
        for e in range(1, 4)))
    wide = read_log(path, wide=True)
    assert wide.columns.tolist() == ["step", "Epoch", "Loss", "test_loss", "test_accuracy"]
    tested = wide[wide["test_accuracy"].notna()]
    # at the end of each epoch, epoch x 60,000 samples (the next epoch's first line shares its row)
    assert tested["step"].tolist() == [60000.0, 120000.0, 180000.0]
    assert tested["test_accuracy"].tolist() == [0.983, 0.986, 0.989] and tested["test_loss"].tolist() == [0.04, 0.03, 0.02]
    assert len(wide) == 31 and wide["step"].iloc[:11].tolist() == [*range(0, 60000, 6400), 60000]
    assert wide.attrs["notes"] == [
        "30 printed record(s) of 'Epoch E, the count n/60000, name: value, ...' fields, step = (Epoch - 1) x 60,000 + "
        "the count, which starts again each epoch; 1 other line(s) skipped",
        "3 test line(s) ('Test set: Average loss: ..., Accuracy: n/N') read as test_loss and test_accuracy at the end "
        "of the epoch before each"]
    watched = watched_metrics(path)
    assert watched["test_accuracy"]["n"] == 3 and watched["Loss"]["n"] == 30


def test_a_step_counted_within_each_epoch_continues_across_the_epochs(tmp_path):
    """``print(f"Epoch: {epoch:2d} step: {i:2d} loss: {loss:.2f}")`` (a real tutorial's output): the
    step starts again each epoch and no total is printed; each epoch was read as a run of its own
    ("not_converged over 3 runs ... the runs disagree: R-hat = 3.95")."""
    path = tmp_path / "train.log"
    losses = [round(11.76 - 0.01 * k, 2) for k in range(150)]
    path.write_text("Start training...\n" + "".join(
        f"Epoch: {e:2d} step: {s:2d} loss: {losses[50 * e + s]:.2f}\n" + (f"Epoch: {e:2d} val_loss: 9.{e}\n" if s == 49 else "")
        for e in range(3) for s in range(0, 50)))
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == list(range(150)) and wide["loss"].tolist() == losses
    assert wide.attrs["notes"][1] == ("'step' started again at 2 new epoch(s): read as a count across the epochs, "
                                      "each epoch's steps after the last of the one before")
    done = cli("check-convergence", path, "--format", "json")
    assert [row["name"] for row in json.loads(done.stdout)["results"]] == ["loss"]  # one run, not three
    out = cli("watch", path, "--once", "--format", "json").stdout
    assert json.loads(out[out.index('{\n  "schema_version"'):])["report"]["metrics"]["loss"]["n"] == 150
    # printed every 10 steps: the next epoch's first step one interval after the last
    from swarmstats.io.formats.printed_pairs import StepsAcrossEpochs
    steps = StepsAcrossEpochs("Step")
    assert [steps.step({"Epoch": e, "Step": s}) for e in (1, 2) for s in (10, 20, 30)] == [10, 20, 30, 40, 50, 60]
    # an appended run goes back to 0 (a new run), a resume to where its epoch began, and a step
    # that goes back within an epoch is left as printed
    steps = StepsAcrossEpochs("step")
    records = [(0, 0), (0, 5), (1, 0), (1, 5), (2, 0), (1, 0), (1, 5), (2, 0), (0, 0), (0, 3), (0, 2)]
    assert [steps.step({"epoch": e, "step": s}) for e, s in records] == [0, 5, 10, 15, 20, 10, 15, 20, 0, 3, 2]


def test_sb3s_evaluation_callback_lines_are_read_on_num_timesteps(tmp_path):
    """SB3's EvalCallback (verbose=1) prints ``Eval num_timesteps=1000, episode_reward=36.00 +/- 5.33``,
    then ``Episode length: ...``: read as a CSV, "malformed row"."""
    path = tmp_path / "eval.log"
    rewards = [20.0 + 16 * k for k in range(1, 26)]
    path.write_text("Using cuda device\nWrapping the env with a `Monitor` wrapper\n" + "".join(
        f"Eval num_timesteps={1000 * k}, episode_reward={r:.2f} +/- {5 + k / 3:.2f}\nEpisode length: {r:.2f} +/- 0.00\n"
        + ("New best mean reward!\n" if k % 4 == 1 else "") for k, r in enumerate(rewards, 1)))
    wide = read_log(path, wide=True)
    assert wide.columns.tolist() == ["step", "episode_reward"] and wide["episode_reward"].tolist() == rewards
    assert wide["step"].tolist() == [1000 * k for k in range(1, 26)] and wide.attrs["step_unit"] == "timesteps"
    done = cli("check-convergence", path, "--format", "json")
    assert json.loads(done.stdout)["results"][0]["verdict"] == "not_converged"  # a steady climb


def test_cleanrls_printed_returns_in_brackets_are_read(tmp_path):
    """CleanRL prints ``global_step=2048, episodic_return=[11.8]`` (numpy's array of one value) and
    ``SPS: 1234``: read as a CSV, "no numeric metric column (columns: global_step=34,
    episodic_return=[11.8])"."""
    path = tmp_path / "ppo.log"
    returns = [10.0 + 4 * i for i in range(40)]
    path.write_text("".join(f"global_step={128 * (i + 1)}, episodic_return=[{r:.1f}]\n" + ("SPS: 1200\n" if i % 10 == 9 else "")
                            for i, r in enumerate(returns)))
    wide = read_log(path, wide=True)
    assert wide.columns.tolist() == ["step", "episodic_return"] and wide["episodic_return"].tolist() == returns
    assert wide["step"].tolist() == [128 * (i + 1) for i in range(40)]
    assert wide.attrs["notes"] == ["40 printed record(s) of name=value pairs, step = global_step; 4 other line(s) skipped"]
    done = cli("check-convergence", path, "--format", "json")
    assert json.loads(done.stdout)["results"][0]["verdict"] == "not_converged"  # a steady climb
    # a list of several values is no number
    from swarmstats.io.formats.printed_pairs import parse_line
    assert parse_line("global_step=10, episodic_return=[1.0, 2.0]") is None


@pytest.mark.parametrize("line, pairs", [
    ("Episode 12\tReward: 150.0\tSteps: 200", {"Episode": 12.0, "Reward": 150.0, "Steps": 200.0}),  # tabs
    ("[Episode 12] reward=150.0 len=200", {"Episode": 12.0, "reward": 150.0, "len": 200.0}),
    ("Epoch 1 - loss: 0.52 - acc: 0.81", {"Epoch": 1.0, "loss": 0.52, "acc": 0.81}),
    ("epoch: 1 train_loss: 0.52 val_loss: 0.61", {"epoch": 1.0, "train_loss": 0.52, "val_loss": 0.61}),
    ("Ep 12 | Reward: 150", {"Ep": 12.0, "Reward": 150.0}),
    ("Step 5 | loss=0.3 lr=0.1", {"Step": 5.0, "loss": 0.3, "lr": 0.1}),  # a piped record's '=' fields
])
def test_listed_records_part_their_fields_by_tabs_dashes_bars_or_spaces(line, pairs):
    from swarmstats.io.formats.printed_pairs import parse_line

    assert parse_line(line) == pairs


@pytest.mark.parametrize("line", [
    "Epoch 3: 100%|##########| 50/50 [00:01<00:00, 30.15it/s, v_num=0, train_loss=0.512]",  # Lightning's bar
    "Epoch 1/10", "Epoch 1/10: 100%|####| 469/469 [00:10<00:00, 45.6it/s, loss=0.3]",
    "Saving checkpoint at epoch 5: done, size: 120", "Step 5 of 10, loss: 0.3",
    "Test set: Average loss: 0.0331, Accuracy: 9893/10000 (99%)", "Epoch 2, learning rate: 1e-3 -> 5e-4"])
def test_a_line_that_only_mentions_a_step_is_no_listed_record(line):
    from swarmstats.io.formats.printed_pairs import parse_line

    assert parse_line(line) is None


def test_an_mlflow_runs_table_is_read_as_each_runs_final_values(tmp_path, capsys):
    """``mlflow.search_runs()`` saved as a CSV holds each run's last values: read as a log it was
    six runs of one point each ("insufficient data" for every metric, and params.batch_size judged
    "higher is better"), then refused.  It is each finished run's final values, described per
    setting (the params that differ; a seed's are replicates); what reads a series refuses it,
    saying where the series are, and so does watch.  A history that carries its runs' ids beside
    a step is read as one."""
    from swarmstats.cli import main

    path = tmp_path / "runs.csv"
    path.write_text(SEARCH_RUNS)
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == "mlflow-runs" and wide.attrs["final_values"]
    assert wide.columns.tolist() == ["run", "step", "loss", "accuracy"]
    assert wide["run"].tolist() == ["lr=0.001", "lr=0.002"] * 3  # in the order the runs started
    assert wide["loss"].tolist() == [0.30, 0.31, 0.32, 0.33, 0.34, 0.35]
    assert main(["check-convergence", str(path)]) == 2
    assert "get_metric_history" in capsys.readouterr().err
    assert main(["describe", str(path), "-m", "accuracy"]) == 0
    out = capsys.readouterr().out
    assert "accuracy [lr=0.001]: n = 3" in out and "accuracy [lr=0.002]: n = 3" in out
    # where its extremes are: a run, named once ("cluster run 1, step 1" before: the step is the run's number)
    assert "min 0.8 (run 1), max 0.84 (run 5)" in out, out
    for table in (path, FIXTURES / "wandb" / "runs.csv"):
        assert main(["watch", str(table), "--once"]) == 2
    # a run still going or failed has no final value
    lines = SEARCH_RUNS.splitlines()
    lines[1], lines[2] = lines[1].replace("FINISHED", "RUNNING"), lines[2].replace("FINISHED", "FAILED")
    unfinished = tmp_path / "unfinished.csv"
    unfinished.write_text("\n".join(lines) + "\n")
    partial = read_log(unfinished, wide=True)
    assert len(partial) == 4 and any("left out 2 run(s) not finished (1 running, 1 failed)" in note
                                     for note in partial.attrs["notes"])
    unfinished.write_text("\n".join([lines[0], lines[1], lines[2]]) + "\n")
    with pytest.raises(InputError, match="no finished run"):
        read_log(unfinished)
    # two exports appended: a run listed twice would count twice
    (tmp_path / "twice.csv").write_text(SEARCH_RUNS + SEARCH_RUNS.split("\n", 2)[1] + "\n")
    with pytest.raises(InputError, match="listed twice .*data row 7"):
        read_log(tmp_path / "twice.csv")
    history = tmp_path / "history.csv"
    history.write_text("run_id,step,metrics.loss\n" + "".join(f"a1,{s},{1 / (s + 1)}\n" for s in range(30)))
    assert read_log(history, wide=True)["metrics.loss"].notna().sum() == 30


def test_tensorboard_scalars_and_tf2_tensors_every_point(tmp_path):
    pytest.importorskip("tensorboard")
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter
    from tensorboard.util import tensor_util

    def write(folder, tag, values, tensor=False):
        writer = EventFileWriter(str(tmp_path / folder))
        for step, value in enumerate(values):
            if tensor:  # TF2: a scalar tensor under the scalars plugin
                summary_value = summary_pb2.Summary.Value(
                    tag=tag, tensor=tensor_util.make_tensor_proto(np.float32(value)),
                    metadata=summary_pb2.SummaryMetadata(
                        plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="scalars")))
            else:
                summary_value = summary_pb2.Summary.Value(tag=tag, simple_value=value)
            writer.add_event(event_pb2.Event(wall_time=time.time(), step=step,
                                             summary=summary_pb2.Summary(value=[summary_value])))
        writer.close()

    values = np.linspace(0, 1, 12_000)  # more than the 10,000 EventAccumulator keeps by default
    write("train", "reward", values)
    write("validation", "reward", [0.5, 0.25, 0.125], tensor=True)
    tidy = read_log(tmp_path)
    assert tidy.attrs["format"] == "tensorboard"
    train = tidy[(tidy.run == "train") & (tidy.metric == "reward")]
    assert len(train) == 12_000 and train["value"].iloc[-1] == pytest.approx(1.0)
    validation = tidy[tidy.run == "validation"].sort_values("step")
    assert validation["value"].tolist() == pytest.approx([0.5, 0.25, 0.125])


def test_generic_tables_keep_working():
    tidy = read_log(io.StringIO("step,reward,seed\n0,0.5,1\n1,0.6,1\n0,0.4,2\n"))
    assert tidy.attrs["format"] == "csv"
    assert set(tidy["metric"]) == {"reward"} and set(tidy["run"]) == {"seed=1", "seed=2"}
    wide = read_log(io.StringIO("step,reward\n0,0.5\n"), wide=True)
    assert list(wide.columns) == ["step", "reward"]


@pytest.mark.parametrize("name,content,message", [
    ("trainer_state.json", '{"log_history": [{"step": 10, "loss": 1.9}, {"step": 2', "not valid JSON"),
    ("progress.csv", "rollout/ep_rew_mean,time/total_timesteps\n1.0,2048\nrollout/ep_rew_mean,"
                     "time/total_timesteps\n2.0,4096\n", "header appears again"),
    ("metrics.csv", "epoch,step,val/reward\n0,10,0.5\n0,20,high\n", "mixes numbers and text"),
    ("monitor.csv", '#{"t_start": oops}\nr,l,t\n1,1,0.1\n', "not valid JSON"),
    ("trainer_state.json", '{"global_step": 3}', "log_history"),
])
def test_malformed_files_give_one_clear_error(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=message):
        read_log(path)


def test_unknown_directory_and_unknown_format_are_clear(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(InputError, match="no log swarmstats recognises"):
        read_log(tmp_path)
    with pytest.raises(InputError, match="format must be one of"):
        read_log(FIXTURES / "sb3" / "progress.csv", format="excel")


def test_files_are_only_read(tmp_path):
    copy = tmp_path / "lightning"
    shutil.copytree(FIXTURES / "lightning", copy)
    before = {p: p.stat().st_mtime_ns for p in copy.rglob("*")}
    read_log(copy / "version_0")
    assert {p: p.stat().st_mtime_ns for p in copy.rglob("*")} == before
    assert sorted(os.listdir(copy / "version_0")) == ["hparams.yaml", "metrics.csv"]


def test_commands_read_every_format_and_pick_runs():
    from tests.test_cli import run
    # two iterations: read (the metric is named) and refused as too short to analyse
    result = run("describe", FIXTURES / "ray" / "trial_00000", "--format", "csv")
    assert result.returncode == 2 and "too few values" in result.stderr
    assert "env_runners/episode_return_mean (2)" in result.stderr
    chart = FIXTURES / "wandb" / "chart.csv"
    grouped = run("describe", chart, "--format", "csv")
    assert grouped.returncode == 0 and "[run=ppo-s2]" in grouped.stdout and "2 runs" in grouped.stderr
    each = run("windows", chart, "--summary")  # per run, never merged
    assert each.returncode == 0 and "[run=ppo-s1]" in each.stdout and "[run=ppo-s2]" in each.stdout
    assert "--run" in each.stderr
    picked = run("windows", chart, "--run", "ppo-s1", "--summary")
    assert picked.returncode == 0, picked.stderr
    wrong = run("windows", chart, "--run", "nope")
    assert wrong.returncode == 2 and "ppo-s1" in wrong.stderr
    runs_table = run("check-convergence", FIXTURES / "wandb" / "runs.csv")
    assert runs_table.returncode == 2 and "runs table" in runs_table.stderr


def test_a_table_with_no_step_named_takes_its_steps_counter_as_the_axis(tmp_path):
    """DeepMind Acme's CSVLogger (keys sorted): no column is named as a step; actor_steps
    counts and is the axis (Acme's plots' x-axis), not the row number - each row is an
    evaluation episode, and slopes read "per 100 steps" of rows.  The other counters are left
    out as counters, and a constant n_steps setting is no axis."""
    path = FIXTURES / "acme/evaluator/logs.csv"
    tidy = read_log(path)
    assert tidy.attrs["format"] == "csv"
    returns = tidy[tidy["metric"] == "episode_return"]
    assert dict(zip(returns["step"], returns["value"])) == {10240: -412.5, 21504: -288.75, 31744: -150.25,
                                                            43008: -61.5, 53248: 12.0, 64512: 55.25}
    assert "actor_steps" not in set(tidy["metric"])
    result = subprocess.run([sys.executable, "-m", "swarmstats.cli", "check-convergence", str(path)],
                            capture_output=True, text=True)
    assert "kept slope/100 actor_steps" in result.stdout, result.stdout
    assert "left out actor_episodes, evaluator_episodes, evaluator_steps, learner_steps (a counter)" in result.stderr
    # a setting logged in every row ends in "steps" too, but does not count: the row number stays
    frame = pd.read_csv(path).drop(columns=["actor_steps", "evaluator_steps", "learner_steps"])
    frame.insert(0, "n_steps", 2048)
    frame.to_csv(tmp_path / "logs.csv", index=False)
    assert read_log(tmp_path / "logs.csv")["step"].drop_duplicates().tolist() == list(range(6))
    # followed live, the same axis (watch read it on its row numbers: "step 5"), and the axis
    # is not listed among the counters left out
    from tests.test_cli import run

    watched = run("watch", path, "--once")
    assert "step 64512: episode_return" in watched.stdout and "step 5:" not in watched.stdout
    assert "actor_steps" not in watched.stdout.split("not tracked")[-1]
    constant = run("watch", tmp_path / "logs.csv", "--once")
    assert "step 5: episode_return" in constant.stdout  # n_steps, a setting by name: rows again


def test_every_registered_format_has_a_case_and_reads_its_fixture_as_itself():
    """The registry is the one list of formats: each offered format is exercised above (or is
    read from a path, like TensorBoard), and the format named by each case is registered."""
    from swarmstats.io.formats import registry

    cased = {case[0] for case in CASES.values()}
    offered = set(registry.names())
    assert offered - cased <= {"tensorboard"}
    assert cased <= offered
    assert [fmt.name for fmt in registry.REGISTRY if not fmt.offered] == ["notebook", "wandb-runs"]
    # the header tests are tried in the registry's order; a table none recognises is generic
    assert registry.sniff_table(["step", "reward"], "log.csv") is None
    assert registry.sniff_table(["Step", "ppo-s1 - train/reward"], "chart.csv").name == "wandb-chart"


def test_a_missing_optional_reader_names_the_extra(tmp_path, monkeypatch, capsys):
    import sys

    from swarmstats.cli import main
    from swarmstats.errors import MissingDependency

    event_file = tmp_path / "events.out.tfevents.1.host"
    event_file.write_bytes(b"\x00" * 16)
    monkeypatch.setitem(sys.modules, "tensorboard.backend.event_processing.event_accumulator", None)
    with pytest.raises(MissingDependency, match=r"pip install 'swarmstats\[tensorboard\]'"):
        read_log(event_file)
    assert main(["describe", str(event_file)]) == 2
    assert "swarmstats[tensorboard]" in capsys.readouterr().err


@pytest.mark.parametrize("seed", range(6))
def test_sparse_rows_fold_like_pandas_pivot_table(seed):
    """The numpy fold of sparse rows (Lightning, W&B, MLflow, TensorBoard) against pandas'
    pivot_table(aggfunc="last"): repeated steps, a value logged twice at one step, missing
    values and steps, metrics never logged, steps out of order, several runs."""
    from swarmstats.io.formats._table import sparse_to_wide

    rng = np.random.default_rng(seed)
    n = 300
    tidy = pd.DataFrame({
        "run": rng.choice(["b", "a", "c"], n),
        "step": rng.integers(0, 40, n).astype(float),
        "metric": rng.choice(["val/loss", "reward", "lr", "never"], n),
        "value": rng.normal(size=n),
    })
    tidy.loc[rng.random(n) < 0.1, "value"] = np.nan
    tidy.loc[rng.random(n) < 0.05, "step"] = np.nan
    tidy.loc[tidy["metric"] == "never", "value"] = np.nan
    for frame in (tidy, tidy.drop(columns="run")):
        index = [c for c in ("run", "step") if c in frame.columns]
        expected = frame.pivot_table(index=index, columns="metric", values="value", aggfunc="last")
        expected.columns.name = None
        # pandas 3's pivot leaves some (run, step) rows out of order; ours are sorted
        expected = expected.reset_index().sort_values(index, kind="stable", ignore_index=True)
        got = sparse_to_wide(frame)
        assert "never" not in got.columns
        assert got.equals(got.sort_values(index, kind="stable", ignore_index=True))
        pd.testing.assert_frame_equal(got, expected, check_dtype=False)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("steps", ["repeated", "one row each"])
def test_sparse_wide_rows_fold_like_the_melted_rows(seed, steps):
    """The column-wise fold the Lightning reader uses (no tidy frame in between) gives the
    table sparse_to_wide gives of the same rows melted: repeated and missing steps, a value
    logged twice at one step, rows with no value, a metric never logged, infinities; and
    steps logged once each, in order (the fold's shortcut)."""
    from swarmstats.io.formats._table import fold_columns, melt_columns, sparse_to_wide

    rng = np.random.default_rng(seed)
    n = 200
    step = rng.integers(0, 30, n).astype(float) if steps == "repeated" else np.arange(n, dtype=float)
    step[rng.random(n) < 0.05] = np.nan
    columns = {}
    for name in ("val/loss", "reward", "lr", "never"):
        values = rng.normal(size=n)
        values[rng.random(n) < 0.6] = np.nan  # each row carries some metrics only
        columns[name] = values
    columns["never"][:] = np.nan
    columns["reward"][rng.random(n) < 0.02] = np.inf
    expected = sparse_to_wide(melt_columns(pd.DataFrame(columns), list(columns), step=step))
    got = pd.DataFrame(fold_columns(step, columns))
    assert "never" not in got.columns
    pd.testing.assert_frame_equal(got, expected)
    # rows that carry no value at all
    empty = fold_columns(np.array([1.0, 2.0]), {"a": np.full(2, np.nan)})
    assert list(empty) == ["step"] and len(empty["step"]) == 0


def test_a_fold_of_rows_one_per_step_in_order_keeps_them_all_and_shares_nothing():
    """Every row kept, each step once and in order (the common case, taken without copies of
    the values): the same table as the general fold, and never the caller's arrays."""
    from swarmstats.io.formats._table import fold_columns, sparse_to_wide

    step = np.arange(5, dtype=float)
    columns = {"b": np.array([1.0, 2.0, np.nan, 4.0, 5.0]), "a": np.array([0.5, np.nan, 0.7, 0.8, 0.9])}
    got = fold_columns(step, columns)
    assert list(got) == ["step", "a", "b"]
    tidy = pd.DataFrame({"step": np.repeat(step, 2), "metric": ["b", "a"] * 5,
                         "value": np.column_stack([columns["b"], columns["a"]]).ravel()})
    pd.testing.assert_frame_equal(pd.DataFrame(got), sparse_to_wide(tidy.dropna(subset=["value"])))
    assert not any(np.shares_memory(out, given) for out in got.values()
                   for given in [step, *columns.values()])


@pytest.mark.parametrize("arrays", [
    {"step": np.arange(3.0), "loss": np.array([0.5, np.nan, 0.3])},           # all floats: one block
    {"step": np.arange(3), "loss": np.array([0.5, 0.4, 0.3])},                  # an integer column
    {"run": np.array(["a", "a", "b"], dtype=object), "step": np.arange(3.0)},  # text
    {"step": np.arange(0.0)},                                                   # no rows
    {},
])
def test_a_readers_columns_make_the_frame_pandas_makes_of_them(arrays):
    """LogTable's frame of numpy columns is the DataFrame pandas builds of the dict, its
    labels typed as pandas types them, built faster when the columns are all floats."""
    from swarmstats.io.formats._table import wide_frame

    got, expected = wide_frame(arrays), pd.DataFrame(arrays)
    pd.testing.assert_frame_equal(got, expected)
    assert got.columns.dtype == expected.columns.dtype


@pytest.mark.parametrize("seed", range(6))
def test_a_wandb_chart_folds_each_run_like_its_melted_rows(seed):
    """The chart reader folds each run's series on the shared x-axis itself; the table is the
    one sparse_to_wide gives of every (run, step, metric, value) row of the export: runs
    sorted by name, missing and repeated x values, a series never logged, a run with a second
    metric, infinities, the bands left out."""
    from swarmstats.io.formats._table import sparse_to_wide
    from swarmstats.io.formats.wandb import read_chart

    rng = np.random.default_rng(seed)
    n = 120
    x = rng.integers(0, 50, n).astype(float) if seed % 2 else np.arange(n, dtype=float)
    x[rng.random(n) < 0.05] = np.nan
    columns = {"Step": x}
    for series in ("zeta - train/loss", "alpha - train/loss", "mid - train/loss", "mid - eval/acc",
                   "never - train/loss"):
        values = rng.normal(size=n)
        values[rng.random(n) < 0.4] = np.nan
        columns[series] = values
        columns[series + "__MIN"] = values - 1
    columns["never - train/loss"][:] = np.nan
    columns["alpha - train/loss"][rng.random(n) < 0.03] = np.inf
    frame = pd.DataFrame(columns)
    rows = [pd.DataFrame({"run": name.split(" - ")[0], "step": x, "metric": name.split(" - ")[1],
                          "value": frame[name]}) for name in frame.columns[1:] if not name.endswith("__MIN")]
    expected = sparse_to_wide(pd.concat(rows, ignore_index=True))
    table = read_chart(frame, "chart.csv")
    pd.testing.assert_frame_equal(table.frame, expected)
    assert "never" not in set(table.frame["run"]) and table.notes[-1] == "5 __MIN/__MAX band column(s) dropped"


def test_a_wandb_chart_metric_named_like_an_axis_keeps_the_axis():
    from swarmstats.io.formats.wandb import read_chart

    table = read_chart(pd.DataFrame({"Step": [0.0, 1.0], "a - step": [5.0, 6.0]}), "chart.csv")
    assert table.frame["step"].tolist() == [0.0, 1.0] and table.frame["step (metric)"].tolist() == [5.0, 6.0]


@pytest.mark.parametrize("name, text", [
    ("progress.csv", "training_iteration,step,episode_reward_mean,timestamp,done\n1,10,0.5,1000,False\n"
                     "2,20,0.6,1001,False\n3,30,0.7,1002,True\n"),
    ("result.json", "".join(f'{{"training_iteration": {i}, "step": {10 * i}, "timestamp": {1000 + i}, '
                            f'"episode_reward_mean": {0.4 + i / 10}}}\n' for i in (1, 2, 3))),
])
def test_a_ray_trainable_that_reports_its_own_step_keeps_training_iteration_as_the_axis(tmp_path, name, text):
    # a function trainable's tune.report({"step": i, ...}): pandas refused to insert the axis
    # beside it ("cannot insert step, already exists"), a traceback from every command
    path = tmp_path / name
    path.write_text(text)
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == [1, 2, 3]
    assert wide["episode_reward_mean"].round(6).tolist() == [0.5, 0.6, 0.7]
    assert wide["wall_time"].tolist() == ([1001, 1002, 1003] if name == "result.json" else [1000, 1001, 1002])
    assert any("'step' left out: Ray's training_iteration is the step axis" in note for note in wide.attrs["notes"])


def test_a_metric_named_like_an_axis_never_overwrites_it(tmp_path):
    # MLflow keys "step" and "run": the step axis read the logged counter and each value of
    # the "run" metric became a run of one value, in silence
    run = tmp_path / "mlruns" / "0" / "abc"
    (run / "metrics").mkdir(parents=True)
    (run / "meta.yaml").write_text("run_id: abc\n")
    for key, values in (("reward", [0.5, 0.6, 0.7, 0.75]), ("step", [10, 20, 30, 40]), ("run", [1, 1, 2, 2])):
        (run / "metrics" / key).write_text("".join(f"{1700000000000 + 1000 * i} {v} {i}\n" for i, v in enumerate(values)))
    wide = read_log(run, wide=True)
    assert wide.columns.tolist() == ["step", "reward", "run (metric)", "step (metric)"]
    assert wide["step"].tolist() == [0, 1, 2, 3] and wide["step (metric)"].tolist() == [10, 20, 30, 40]
    # the same for a log folded column by column (Lightning's rows): a logged "run" stays a metric
    lightning = tmp_path / "metrics.csv"
    lightning.write_text("epoch,step,run,train_loss\n0,0,1,0.9\n0,1,1,0.8\n0,2,2,0.7\n")
    wide = read_log(lightning, wide=True)
    assert wide.columns.tolist() == ["step", "run (metric)", "train_loss"] and len(wide) == 3


@pytest.mark.parametrize("name, text, axis", [
    ("progress.csv", "time/total_timesteps,rollout/ep_rew_mean,step\n100,0.1,1\n200,0.2,2\n300,0.3,3\n",
     [100.0, 200.0, 300.0]),
    ("progress.txt", "Epoch\tAverageEpRet\tstep\tTotalEnvInteracts\n0\t1.0\t5\t4000\n1\t2.0\t6\t8000\n"
                     "2\t3.0\t7\t12000\n", [0.0, 1.0, 2.0]),
])
def test_a_progress_table_column_named_step_is_not_taken_for_the_step_it_names(tmp_path, name, text, axis):
    # SB3's and Spinning Up's readers said "step = time/total_timesteps" (or Epoch) while the
    # step axis held a logged column called "step"
    path = tmp_path / name
    path.write_text(text)
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == axis
    assert wide["step (metric)"].tolist() == ([1.0, 2.0, 3.0] if name == "progress.csv" else [5.0, 6.0, 7.0])


def test_a_prime_rl_line_with_its_own_wall_time_keeps_it(tmp_path):
    # renaming "time" to "wall_time" beside a logged "wall_time" made two columns of one name
    # (a traceback in every command)
    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(f'{{"step": {i}, "time": {i + 1.0}, "wall_time": {i + 5.0}, "reward/mean": {0.2 + i / 10}}}\n'
                            for i in range(4)))
    wide = read_log(path, wide=True)
    assert wide["wall_time"].tolist() == [5.0, 6.0, 7.0, 8.0] and wide["time"].tolist() == [1.0, 2.0, 3.0, 4.0]


def test_a_verifiers_rollout_that_carries_a_step_field_keeps_the_rollout_axes(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text("".join(f'{{"example_id": {i % 2}, "step": 500, "run": "x", "reward": {i / 10}}}\n'
                            for i in range(8)))
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == [0, 0, 1, 1, 2, 2, 3, 3] and set(wide["run"]) == {"0", "1"}
    assert "'step', 'run' left out: the example and the rollout's number within it are the run and step axes" \
        in wide.attrs["notes"]


def test_rllibs_new_api_stack_judges_returns_and_losses_and_leaves_its_timers_and_counts_out():
    """Ray 2.10+'s RLlib (the new API stack) writes its own work beside the returns, under
    names the older stack did not use (the key names of ray.rllib.utils.metrics; the fixture
    is made up from them): timers outside timers/ (env_runners/sample, ..._timer), the wall
    time of an episode and between samples, lifetime counts, counts per agent below the
    counter's name, the connectors' summed episode lengths, the weights' sequence number, the
    model's size.  Judged as metrics they read "not converged" (a timer drifting with the
    machine's load) and failed the gate, or "converged" (a constant parameter count)."""
    from swarmstats.io.columns import table_roles
    from tests.test_cli import run

    path = FIXTURES / "ray-new-api-stack" / "progress.csv"
    wide = read_log(path, wide=True)
    columns, _ = table_roles(wide)
    # followed live, where a column's shape is not known yet, the names alone tell the same
    out = run("watch", path, "--once", "--format", "json").stdout
    report = json.loads(out[out.index('{\n  "schema_version"'):])["report"]
    assert sorted(report["metrics"]) == sorted(columns.metrics)
    assert columns.metrics == ["env_runners/episode_return_mean", "env_runners/episode_len_mean",
                               "learners/default_policy/total_loss", "learners/default_policy/vf_loss",
                               "learners/default_policy/entropy"]
    why = columns.bookkeeping
    for name in ("env_runners/sample", "env_runners/env_reset_timer", "env_runners/rlmodule_inference_timer",
                 "env_runners/env_to_module_connector/connector_pipeline_timer",
                 "learners/__all_modules__/learner_connector_timer", "timers/training_iteration",
                 "fault_tolerance/num_healthy_workers"):
        assert why[name].startswith("a system measurement"), name
    for name in ("env_runners/episode_duration_sec_mean", "env_runners/time_between_sampling"):
        assert why[name] == "a clock", name
    for name in ("env_runners/num_episodes_lifetime", "env_runners/num_env_steps_sampled",
                 "env_runners/num_agent_steps_sampled/default_agent", "env_runners/weights_seq_no",
                 "env_runners/env_to_module_sum_episodes_length_in",
                 "learners/__all_modules__/learner_connector_sum_episodes_length_in",
                 "learners/default_policy/num_module_steps_trained", "num_training_step_calls_per_iteration"):
        assert why[name] == "a counter", name
    for name in ("learners/default_policy/num_trainable_parameters",
                 "learners/default_policy/module_train_batch_size_mean"):
        assert why[name].startswith("a setting of the run"), name
    assert why["env_runners/num_env_steps_sampled_lifetime_throughput"] == "throughput"
    assert why["learners/default_policy/curr_kl_coeff"].startswith("a coefficient the algorithm sets")


def test_the_model_size_a_vision_training_writes_on_every_line_is_a_setting_not_a_converged_metric(tmp_path):
    # the log.txt of DeiT, MAE, ConvNeXt and DETR (torchvision's reference-script loop): one
    # JSON line per epoch with the model's n_parameters in each, which read "converged: the
    # series is constant" beside the accuracy it sat next to
    path = tmp_path / "log.txt"
    path.write_text("".join(json.dumps({"train_lr": 1e-4, "train_loss": 4.0 - 0.1 * e, "test_loss": 3.0 - 0.05 * e,
                                        "test_acc1": 40.0 + 2 * e + (e % 3), "epoch": e, "n_parameters": 5717416})
                            + "\n" for e in range(30)))
    result = cli("check-convergence", path, "--format", "json")
    assert sorted(row["name"] for row in json.loads(result.stdout)["results"]) == ["test_acc1", "test_loss",
                                                                                    "train_loss"]
    assert "n_parameters (a setting of the run: its configuration)" in result.stderr
    from swarmstats.io.columns import bookkeeping_by_name

    for name in ("n_parameters", "num_params", "total_params", "model/num_parameters", "trainable_params",
                 "param_count", "world_size", "num_gpus", "train/max_seq_length", "gradient_accumulation_steps"):
        assert bookkeeping_by_name(name) == "a setting of the run: its configuration", name
    for name in ("params_norm", "param_grad_norm", "n_params_updated_ratio"):  # measured, not set
        assert bookkeeping_by_name(name) is None, name


def test_a_wandb_history_that_logged_its_own_step_keeps_wandbs_step_as_the_axis(tmp_path):
    # wandb.log({"step": i, ...}) beside W&B's _step: the history had two "step" columns and
    # every command stopped in a traceback
    path = tmp_path / "history.csv"
    path.write_text("_step,_runtime,_timestamp,step,reward\n0,1.0,1000.5,0,0.1\n1,2.0,1001.5,100,0.2\n"
                    "2,3.0,1002.5,200,0.3\n3,4.0,1003.5,300,0.35\n")
    wide = read_log(path, wide=True)
    assert wide.attrs["format"] == "wandb-history"
    assert wide.columns.tolist() == ["step", "wall_time", "reward"]
    assert wide["step"].tolist() == [0, 1, 2, 3] and wide["wall_time"].tolist() == [1000.5, 1001.5, 1002.5, 1003.5]
    assert wide.attrs["notes"] == ["'step' left out: W&B's _step is the step axis (a logged counter of that name "
                                   "is not a metric)"]


def test_a_baselines_step_column_of_words_gives_way_to_the_next_one_of_numbers(tmp_path):
    # the step is the first of BASELINES_STEPS that holds numbers (it was the first named, and
    # a column of words there made the row number the step)
    path = tmp_path / "progress.csv"
    path.write_text("TimestepsSoFar,total_timesteps,EpRewMean\nabc,100,1.5\nabd,200,2.5\n")
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == [100.0, 200.0] and "step = total_timesteps" in wide.attrs["notes"]


@pytest.mark.parametrize("rows", [30, 3000])  # read by numpy / by pandas before the ordinary read
def test_a_malformed_monitor_row_is_named_by_its_line_in_the_file(tmp_path, rows):
    # pandas counted from the column names, one line short of the file's (its first line is
    # the JSON header): "line 1202" pointed at a good row
    body = "".join(f"{i % 7}.5,10,{i + 1}\n" for i in range(rows))
    path = tmp_path / "0.monitor.csv"
    path.write_text('#{"t_start": 1.0}\nr,l,t\n' + body + "1.0,2,3,4\n")
    bad_line = rows + 3
    assert path.read_text().splitlines()[bad_line - 1] == "1.0,2,3,4"
    with pytest.raises(InputError, match=rf"malformed row: .*line {bad_line}, saw 4"):
        read_log(path)


def test_json_lines_named_json_are_read_as_lines(tmp_path):
    """detectron2 writes its metrics.json (and mmdetection its .log.json) one object per line:
    read as one JSON document it was "not valid JSON (line 2: Extra data)"."""
    lines = [json.dumps({"iteration": i, "total_loss": 2.0 - 0.01 * i, "lr": 0.02}) for i in range(19, 400, 20)]
    (tmp_path / "metrics.json").write_text("\n".join(lines) + "\n")
    wide = read_log(tmp_path / "metrics.json", wide=True)
    assert wide.attrs["format"] == "jsonl" and len(wide) == 20
    assert wide["total_loss"].iloc[0] == pytest.approx(1.81)
    # a document keeps being one, spread over lines or on one
    (tmp_path / "state.json").write_text(json.dumps({"log_history": [{"step": 1, "loss": 0.5}]}))
    assert read_log(tmp_path / "state.json").attrs["format"] == "trainer-state"


def test_add_scalars_curves_are_metrics_of_their_run_not_runs(tmp_path):
    """add_scalars(main_tag, {key: value}) writes each key through a writer in a subfolder of its
    own (PyTorch: <log_dir>/<main_tag>_<key>; tensorboardX: <log_dir>/<main_tag>/<key>), which
    TensorBoard lists as runs: MAPPO's per-agent rewards (agent0/individual_rewards, agent1/...)
    were read as runs of one metric."""
    tensorboard = pytest.importorskip("torch.utils.tensorboard")
    for seed in (1, 2):
        writer = tensorboard.SummaryWriter(str(tmp_path / f"seed{seed}"))
        for step in range(30):
            writer.add_scalars("average_episode_rewards", {"average_episode_rewards": step + seed}, step)
            for agent in (0, 1):
                writer.add_scalars(f"agent{agent}/individual_rewards",
                                   {f"agent{agent}/individual_rewards": step * (agent + 1)}, step)
            writer.add_scalars("loss", {"train": 1.0 / (step + 1), "val": 2.0 / (step + 1)}, step)
            writer.add_scalar("value_loss", 0.5, step)
        writer.close()
    # tensorboardX's layout: <log_dir>/<main_tag>/<key>, the scalar tagged main_tag
    extra = tensorboard.SummaryWriter(str(tmp_path / "seed2" / "data" / "group" / "xsinx"))
    for step in range(30):
        extra.add_scalar("data/group", float(step), step)
    extra.close()
    wide = read_log(tmp_path, wide=True)
    assert sorted(wide["run"].unique()) == ["seed1", "seed2"]
    assert {"agent0/individual_rewards", "agent1/individual_rewards", "average_episode_rewards",
            "loss/train", "loss/val", "value_loss"} <= set(wide.columns)
    seed2 = wide[wide["run"] == "seed2"].set_index("step")
    assert seed2["agent1/individual_rewards"].tolist() == [2.0 * s for s in range(30)]
    assert seed2["data/group/xsinx"].tolist() == [float(s) for s in range(30)]
    assert any("add_scalars() curve(s)" in note for note in wide.attrs["notes"])


def test_a_spinning_up_data_folder_reads_each_run_folder_as_a_run_and_its_seeds_as_replicates():
    """``data/<exp>/<exp>_s<seed>/progress.txt``: the folder given may be the data folder, an
    experiment's or a run's; ``_s<seed>`` marks the seeds of one setting."""
    data = read_log(FIXTURES / "spinup", wide=True)
    assert sorted(data["run"].unique()) == ["ppo_s0", "ppo_s1", "sac_s0"]
    assert data.attrs["notes"][0] == "3 run folders holding a progress.txt, one run each: ppo_s0, ppo_s1, sac_s0"
    # the counter and the clock are bookkeeping, the CamelCase cost and losses metrics
    columns = table_roles(data, step="step")[0]
    assert columns.bookkeeping == {"TotalEnvInteracts": "a counter", "Time": "a clock"}
    assert {"AverageEpCost", "LossV", "Q1Vals", "LogPi"} <= set(columns.metrics)
    # ppo_s0 and ppo_s1 are seeds of one setting, sac_s0 another
    assert find_runs(data, step="step").configs == ["ppo", "sac"]
    experiment = read_log(FIXTURES / "spinup" / "ppo", wide=True)
    key = find_runs(experiment, step="step")
    assert key.names == ["ppo_s0", "ppo_s1"] and key.configs == []  # replicates only
    one = read_log(FIXTURES / "spinup" / "ppo" / "ppo_s0")  # a run folder is its progress.txt
    pd.testing.assert_frame_equal(one, read_log(FIXTURES / "spinup" / "ppo" / "ppo_s0" / "progress.txt"))


def test_a_spinning_up_folder_with_one_broken_run_reads_the_others_and_says_so(tmp_path):
    good = tmp_path / "ppo" / "ppo_s0"
    good.mkdir(parents=True)
    (good / "progress.txt").write_bytes((FIXTURES / "spinup/ppo/ppo_s0/progress.txt").read_bytes())
    broken = tmp_path / "ppo" / "ppo_s1"
    broken.mkdir()
    (broken / "progress.txt").write_text("")
    data = read_log(tmp_path, wide=True)
    assert set(data["run"]) == {"ppo_s0"}
    assert any(note.startswith("ppo_s1: ") and note.endswith(": left out") for note in data.attrs["notes"])
    (good / "progress.txt").write_text("")
    with pytest.raises(InputError, match="no progress.txt below it could be read"):
        read_log(tmp_path)


def test_rlkits_durations_named_with_their_unit_are_clocks(tmp_path):
    """rlkit's progress.csv times each phase of an epoch as "time/epoch (s)": durations, not
    outcomes, which were judged as metrics (and failed the gate while a run sped up)."""
    path = tmp_path / "progress.csv"
    pd.DataFrame({"Epoch": range(6), "evaluation/Average Returns": [1.0, 3.0, 4.0, 4.5, 4.4, 4.6],
                  "time/epoch (s)": [31.2, 30.8, 29.9, 31.5, 30.2, 30.0],
                  "time/total (s)": [31.2, 62.0, 91.9, 123.4, 153.6, 183.6],
                  "exploration/num steps total": [1000, 2000, 3000, 4000, 5000, 6000]}).to_csv(path, index=False)
    columns = table_roles(read_log(path, wide=True))[0]
    assert columns.metrics == ["evaluation/Average Returns"]
    assert columns.bookkeeping == {"time/epoch (s)": "a clock", "time/total (s)": "a clock",
                                   "exploration/num steps total": "a counter"}


def test_a_metrics_jsonl_whose_groups_share_a_step_folds_to_one_row_per_step(tmp_path):
    # Dreamer's loggers write each group of metrics (training episodes, evaluations, losses)
    # on lines of their own at a step the other groups' lines share: 7 lines, 3 steps
    lines = [{"step": 1000, "train/return": 58.5, "episodes": 1},
             {"step": 2000, "train/return": 32.2, "episodes": 2},
             {"step": 2000, "eval/return": 40.0},
             {"step": 2000, "model_loss": 3.5, "fps": 120.0},
             {"step": 3000, "train/return": 47.8, "episodes": 3},
             {"step": 3000, "model_loss": 3.1},
             {"step": 3000, "model_loss": 2.9}]  # logged twice at one step: the last stands
    path = tmp_path / "metrics.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == [1000, 2000, 3000]
    assert wide["train/return"].tolist() == [58.5, 32.2, 47.8]
    assert wide["eval/return"].tolist()[1] == 40.0 and wide["eval/return"].isna().sum() == 2
    assert wide["model_loss"].tolist()[1:] == [3.5, 2.9]
    tidy = read_log(path)
    assert tidy.groupby("metric").size().to_dict() == {"episodes": 3, "eval/return": 1, "fps": 1,
                                                        "model_loss": 2, "train/return": 3}
    note = tidy.attrs["notes"][0]
    assert note.startswith("a key absent from a line is missing at that step") and "Dreamer" in note
    # a step that goes back is a resumed run: left as written, for the resume rule to replace
    steps = [*range(10), *range(7, 12)]
    path.write_text("".join(json.dumps({"step": s, "reward": float(i)}) + "\n" for i, s in enumerate(steps)))
    resumed = read_log(path, wide=True)
    assert resumed["step"].tolist() == list(range(12))
    assert resumed["reward"].tolist()[7:] == [10.0, 11.0, 12.0, 13.0, 14.0]  # the resumed run's
    assert any(n.startswith("resumed at step 7 after step 9") for n in resumed.attrs["notes"])


def test_a_tensorboard_csv_download_is_judged_by_its_tag_not_as_a_metric_called_value(tmp_path):
    """A falling value loss downloaded from TensorBoard read "still worsening": the metric was
    'Value', and higher is better for a name that says nothing else."""
    source = FIXTURES / "tensorboard-csv" / "run-PPO_1-tag-train_value_loss.csv"
    rng = np.random.default_rng(3)
    path = tmp_path / source.name
    path.write_text("Wall time,Step,Value\n" + "".join(
        f"{1.7e9 + 3 * k:.3f},{2048 * (k + 1)},{2 * np.exp(-k / 40) + rng.normal(0, 0.05):.4f}\n" for k in range(150)))
    result = _cli("check-convergence", path)
    assert result.returncode == 1, result.stderr
    assert "train_value_loss" in result.stdout and "still improving" in result.stdout
    assert "lower is better for train_value_loss" in result.stderr
    assert "of the tag train_value_loss of run PPO_1" in result.stderr


def test_tensorboard_csv_downloads_name_their_sample_and_their_doubles(tmp_path):
    from swarmstats.io.formats.tensorboard_csv import run_and_tag

    rows = "Wall time,Step,Value\n" + "".join(f"{1.7e9 + k},{k},{k % 7}\n" for k in range(1000))
    (tmp_path / "run-a-tag-reward.csv").write_text(rows)
    (tmp_path / "run-a-tag-reward (1).csv").write_text(rows)  # downloaded twice
    (tmp_path / "notes.csv").write_text("x,y\n1,2\n")  # another table beside them: not read
    tidy = read_log(tmp_path)
    assert tidy.attrs["format"] == "tensorboard-csv" and len(tidy[tidy["metric"] == "reward"]) == 1000
    notes = " ".join(tidy.attrs["notes"])
    assert "1,000 rows, as many points as TensorBoard keeps of a scalar by default" in notes
    assert "left out run-a-tag-reward (1).csv: the same run and tag as run-a-tag-reward.csv" in notes
    assert run_and_tag("run-.-tag-Loss_total (2).csv") == (".", "Loss_total")
    # the lower-case header of the scripts that export event files the same way; named by its file
    (tmp_path / "val_loss.csv").write_text("wall_time,step,value\n1.7e9,1,0.9\n1.7e9,2,0.8\n")
    assert read_log(tmp_path / "val_loss.csv", wide=True).columns.tolist() == ["step", "val_loss", "wall_time"]


@pytest.mark.parametrize("text, message", [
    ("Wall time,Step,Value\n", "no data rows"),
    ("Wall time,Step,Value\n1.7e9,1,0.5\n1.7e9,2,oops\n", "oops"),
    ("Wall time,Step,Value\n1.7e9,1,0.5,7\n", "malformed"),
])
def test_a_broken_tensorboard_csv_download_is_one_clear_error(tmp_path, text, message):
    path = tmp_path / "run-a-tag-r.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        read_log(path)


@pytest.mark.parametrize("path", ["tensorboard-csv", "monitor", "sb3/progress.csv", "lightning/version_0"])
def test_read_logs_own_tidy_frame_saved_as_csv_reads_back_as_the_log_it_came_from(tmp_path, path):
    """A long table - a row per step and metric - was read as one metric called 'value': a run's
    rewards and losses pooled, split into "runs" where the step started again."""
    original = read_log(FIXTURES / path, wide=True)
    saved = tmp_path / "tidy.csv"
    read_log(FIXTURES / path).to_csv(saved, index=False)
    again = read_log(saved, wide=True)
    assert "a long table ('metric' names each row's metric" in again.attrs["notes"][0]
    metrics = [c for c in original.columns if c not in ("run", "step", "wall_time")]
    assert sorted(c for c in again.columns if c not in ("run", "step", "wall_time")) == sorted(metrics)
    for metric in metrics:
        assert again[metric].to_numpy(dtype=float) == pytest.approx(original[metric].to_numpy(dtype=float),
                                                                    nan_ok=True), metric
    if "run" in original.columns:
        assert again["run"].astype(str).tolist() == original["run"].astype(str).tolist()


def test_long_tables_of_tensorboard_and_mlflow_are_one_metric_per_name(tmp_path):
    rng = np.random.default_rng(2)
    rows = [(run, tag, 2048 * (k + 1), (200 if "rew" in tag else 2) * np.exp(-k / 15) + rng.normal(0, 0.01))
            for run in ("PPO_1", "PPO_2") for tag in ("rollout/ep_rew_mean", "train/value_loss") for k in range(40)]
    scalars = tmp_path / "scalars.csv"  # ExperimentFromDev(...).get_scalars().to_csv(...)
    pd.DataFrame(rows, columns=["run", "tag", "step", "value"]).to_csv(scalars, index=False)
    result = _cli("check-convergence", scalars, "--format", "json")
    names = [r["name"] for r in json.loads(result.stdout)["results"]]
    assert names == ["rollout/ep_rew_mean", "train/value_loss"]  # not one metric 'value' of four "runs"
    runs = json.loads(result.stdout)["results"][1]["runs"]
    assert [r["n"] for r in runs] == [40, 40]
    # MLflow's metric history: key, value, timestamp, step
    history = tmp_path / "history.csv"
    history.write_text("key,value,timestamp,step\n" + "".join(
        f"{key},{v},{1700000000000 + k},{k}\n" for key, v in (("loss", 0.5), ("acc", 0.8)) for k in range(3)))
    wide = read_log(history, wide=True)
    assert wide[["step", "acc", "loss"]].to_dict("list") == {"step": [0, 1, 2], "acc": [0.8] * 3, "loss": [0.5] * 3}
    assert "timestamp" in wide.columns  # a clock, kept beside the metrics
    # no step column: each metric's rows are its steps 0, 1, 2 ... in the order written; a
    # metric written twice at a step keeps its last value, and says so
    plain = tmp_path / "plain.csv"
    plain.write_text("metric,value\nloss,1.0\nacc,0.1\nloss,0.5\nacc,0.2\nloss,0.25\n")
    wide = read_log(plain, wide=True)
    assert wide["step"].tolist() == [0, 1, 2] and wide["loss"].tolist() == [1.0, 0.5, 0.25]
    assert wide["acc"].tolist()[:2] == [0.1, 0.2] and np.isnan(wide["acc"].iloc[2])
    clash = tmp_path / "clash.csv"  # a metric named as a column beside it does not overwrite it
    clash.write_text("step,metric,value\n0,step,1\n0,loss,0.5\n1,step,2\n1,loss,0.4\n")
    assert read_log(clash, wide=True).to_dict("list") == {"step": [0, 1], "step (metric)": [1.0, 2.0],
                                                         "loss": [0.5, 0.4]}
    repeated = tmp_path / "repeated.csv"
    repeated.write_text("step,metric,value\n0,loss,1.0\n0,loss,0.9\n1,loss,0.8\n")
    table = read_log(repeated, wide=True)
    assert table["loss"].tolist() == [0.9, 0.8] and "1 row(s) repeat a metric at a step" in table.attrs["notes"][0]


def test_a_label_column_beside_metrics_of_their_own_is_no_long_table(tmp_path):
    path = tmp_path / "labelled.csv"  # 'value' and 'reward' are both metrics; 'tag' labels the run
    path.write_text("step,tag,value,reward\n" + "".join(f"{k},base,{k * 0.1},{k * 0.2}\n" for k in range(5)))
    wide = read_log(path, wide=True)
    assert {"value", "reward", "tag"} <= set(wide.columns)
    bad = tmp_path / "bad.csv"
    bad.write_text("metric,value\nloss,1\nloss,0.5\nacc,0.1\nloss,oops\n")
    with pytest.raises(InputError, match="column 'value' has a non-numeric value 'oops' \\(data row 4\\)"):
        read_log(bad)


def test_a_spreadsheets_percentages_and_decimal_commas_are_numbers_with_a_note(tmp_path):
    """An accuracy saved as '70.3%' was left out without a word beside its loss, and a
    European-locale export ('0,42' between ';') had 'no numeric metric column'."""
    percent = tmp_path / "percent.csv"
    percent.write_text("epoch,accuracy,loss\n0,61.5%,0.9\n1,70%,0.7\n2,,0.6\n3,72.25 %,0.5\n")
    wide = read_log(percent, wide=True)
    np.testing.assert_array_equal(wide["accuracy"], [61.5, 70.0, np.nan, 72.25])
    assert "accuracy written as percentages ('61.5%'): read as the numbers printed, in percent" in wide.attrs["notes"]
    european = tmp_path / "european.csv"
    european.write_text("Schritt;Belohnung;loss\n1;0,5;1.234,5\n2;0,75;12,25\n3;1;2,0\n")
    wide = read_log(european, wide=True)
    assert wide["Belohnung"].tolist() == [0.5, 0.75, 1.0] and wide["loss"].tolist() == [1234.5, 12.25, 2.0]
    assert "Belohnung written with a decimal comma ('0,5'): read as 0.5" in wide.attrs["notes"]
    # between commas, a quoted "64,64" is a list, not 64.64; a column mixing percentages and
    # words is no column of numbers
    listed = tmp_path / "listed.csv"
    listed.write_text('step,layers,score,reward\n0,"64,64",50%,0.5\n1,"64,64",high,0.6\n')
    wide = read_log(listed, wide=True)
    assert wide["layers"].tolist() == ["64,64"] * 2 and wide["score"].tolist() == ["50%", "high"]
    assert not wide.attrs["notes"]


def test_a_column_of_words_is_said_not_dropped_without_a_word(tmp_path):
    path = tmp_path / "noted.csv"
    path.write_text("step,reward,comment\n" + "".join(f"{k},{k % 3 * 0.1},{'ok' if k % 2 else 'retry'}\n"
                                                      for k in range(30)))
    result = _cli("check-convergence", path)
    assert result.returncode in (0, 1), result.stderr
    assert "not analysed: comment (words, not numbers)" in result.stderr
    only_words = tmp_path / "words.csv"
    only_words.write_text("step,grade\n0,high\n1,low\n2,high\n")
    result = _cli("describe", only_words)
    assert result.returncode == 2 and "not numbers: grade" in result.stderr


@pytest.mark.parametrize("compress", ["gzip", "bz2", "lzma"])
def test_a_compressed_log_is_read_as_the_log_it_holds(tmp_path, compress):
    """progress.csv.gz was refused as binary data ("a NUL byte at offset 8")."""
    import importlib

    module = importlib.import_module(compress)
    suffix = {"gzip": ".gz", "bz2": ".bz2", "lzma": ".xz"}[compress]
    for source in (FIXTURES / "sb3" / "progress.csv", REAL / "sb3" / "dqn-Acrobot-v1.monitor.csv"):
        packed = tmp_path / (source.name + suffix)
        packed.write_bytes(module.compress(source.read_bytes()))
        plain, read = read_log(source, wide=True), read_log(packed, wide=True)
        assert read.attrs["format"] == plain.attrs["format"]  # sniffed under its own name
        pd.testing.assert_frame_equal(read, plain, check_exact=True)
        assert read.attrs["notes"][0] == f"read from its {'bzip2' if compress == 'bz2' else 'xz' if compress == 'lzma' else 'gzip'}-compressed file"
    result = subprocess.run([sys.executable, "-m", "swarmstats.cli", "describe", "-"],  # standard input
                            input=packed.read_bytes(), capture_output=True)
    assert result.returncode == 0 and result.stdout.startswith(b"r: n = 1011, mean -97.88"), result


def test_an_archive_or_a_broken_compressed_file_is_one_clear_error(tmp_path):
    import gzip
    import tarfile
    import zipfile

    log = tmp_path / "progress.csv"
    log.write_text("step,reward\n0,0.5\n1,0.6\n")
    with tarfile.open(tmp_path / "logs.tgz", "w:gz") as archive:
        archive.add(log, arcname="progress.csv")
    with zipfile.ZipFile(tmp_path / "logs.zip", "w") as archive:
        archive.write(log, "progress.csv")
    (tmp_path / "cut.csv.gz").write_bytes(gzip.compress(log.read_bytes())[:15])
    for name, message in (("logs.tgz", "is a tar archive: extract the log from it first"),
                          ("logs.zip", "is a zip archive: extract the log from it first"),
                          ("cut.csv.gz", "a gzip-compressed file that cannot be decompressed")):
        with pytest.raises(InputError, match=message):
            read_log(tmp_path / name)
    text = tmp_path / "bzh.csv"  # a text log whose first letters are bzip2's magic is text
    text.write_text("BZh_score,step\n0.5,0\n0.6,1\n")
    assert read_log(text, wide=True)["BZh_score"].tolist() == [0.5, 0.6]


def test_a_repeated_column_name_is_said_and_a_date_written_as_text_is_no_lost_metric(tmp_path):
    path = tmp_path / "twice.csv"
    path.write_text("timestamp,step,loss,loss\n" + "".join(f"2024-01-01 12:{k:02d}:00,{k},{k * 0.1},{k * 0.2}\n"
                                                          for k in range(30)))
    result = _cli("check-convergence", path)
    assert "the header names 'loss' more than once: the column after the first is read as 'loss.1'" in result.stderr
    assert "not analysed" not in result.stderr  # the timestamp is a clock, not words lost


def test_a_tensorboard_tag_named_like_an_axis_keeps_the_axis(tmp_path):
    path = tmp_path / "run-a-tag-step.csv"  # a run that logged its step as a scalar too
    path.write_text("Wall time,Step,Value\n1.7e9,10,1\n1.7e9,20,2\n1.7e9,30,3\n")
    wide = read_log(path, wide=True)
    assert wide["step"].tolist() == [10, 20, 30] and wide["step (tag)"].tolist() == [1, 2, 3]


def test_several_values_logged_at_one_tensorboard_step_are_each_kept(tmp_path):
    """CleanRL logs charts/episodic_return once per finished episode at the global step, and
    the episodes of several environments end at one step: folded to one row per step, all
    but the last of them were dropped without a word.  A restart (the step going back) still
    has its later records replace the earlier."""
    pytest.importorskip("tensorboard")
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    rng = np.random.default_rng(0)
    writer = EventFileWriter(str(tmp_path / "CartPole-v1__ppo__1"))
    logged, clock = [], 1.7e9

    def add(tag, value, step):
        nonlocal clock
        clock += 0.01
        writer.add_event(event_pb2.Event(wall_time=clock, step=step, summary=summary_pb2.Summary(
            value=[summary_pb2.Summary.Value(tag=tag, simple_value=value)])))

    for iteration in range(1, 121):
        step = 512 * iteration
        for _ in range(rng.integers(1, 4)):  # 1-3 environments finish an episode at this step
            value = float(np.float32(0.004 * step + rng.normal()))
            logged.append((step, value))
            add("charts/episodic_return", value, step)
        add("losses/value_loss", 1.0 / iteration, step)
    writer.close()
    tidy = read_log(tmp_path)
    returns = tidy[tidy["metric"] == "charts/episodic_return"]
    assert list(zip(returns["step"], returns["value"])) == logged  # every episode, in order
    assert len(tidy[tidy["metric"] == "losses/value_loss"]) == 120
    assert any(note.startswith(f"charts/episodic_return: {len(logged)} values at 120 steps")
               for note in tidy.attrs["notes"])
    # judged on its steps: the slope per step, not per row (rows ~256 steps apart were read as
    # "+101 per 100 steps" for a return rising 0.4)
    result = _cli("check-convergence", tmp_path, "-m", "charts/episodic_return", "--format", "json")
    judged = json.loads(result.stdout)["results"][0]
    assert judged["n"] == len(logged) and 0.003 < judged["trend_slope"] < 0.005
    assert any("logged at a step already holding one" in reason for reason in judged["reasons"])


def test_rl_games_and_rsl_rl_copies_of_a_metric_on_other_x_axes_are_left_out(tmp_path):
    """rl_games (IsaacGymEnvs) logs each reward as rewards/step, rewards/iter and rewards/time -
    one value against frames, iterations and seconds - and rsl_rl (IsaacLab, legged_gym)
    Train/mean_reward against iterations and Train/mean_reward/time against int(seconds): each
    reward was judged two or three times ("per 100 steps" of seconds among them) and the table's
    step axis mixed frames, iterations and seconds.  A copy is left out only when its values
    are the kept tag's; a lone X/time stays what its name says (a clock)."""
    pytest.importorskip("tensorboard")
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    rng = np.random.default_rng(1)
    for run, layout in (("rl_games", "rl_games"), ("rsl_rl", "rsl_rl")):
        writer = EventFileWriter(str(tmp_path / run))
        clock = 1.7e9

        def add(tag, value, step):
            writer.add_event(event_pb2.Event(wall_time=clock, step=int(step), summary=summary_pb2.Summary(
                value=[summary_pb2.Summary.Value(tag=tag, simple_value=float(np.float32(value)))])))

        for iteration in range(1, 61):
            clock += 0.6
            seconds = iteration * 0.6
            reward, length = 10 * (1 - np.exp(-iteration / 15)) + rng.normal(0, 0.3), 200 + rng.normal(0, 5)
            if layout == "rl_games":
                frame = 16384 * iteration
                for name, value in (("rewards", reward), ("episode_lengths", length)):
                    add(f"{name}/step", value, frame)
                    add(f"{name}/iter", value, iteration)
                    add(f"{name}/time", value, seconds)
                add("losses/a_loss", rng.normal(0, 0.01), frame)
                score = rng.normal()
                add("scores/mean", score, frame)
                add("scores/time", score, seconds)  # a copy of its sibling scores/mean
                add("performance/rl_update_time", 0.1, frame)  # a clock, copy of nothing: left to its name
            else:
                add("Train/mean_reward", reward, iteration)
                add("Train/mean_reward/time", reward, int(seconds))  # several values at one second
                add("Train/mean_episode_length", length, iteration)
                add("Train/mean_episode_length/time", length + 1.0, int(seconds))  # not a copy: kept
        writer.close()
    games = read_log(tmp_path / "rl_games", wide=True)
    assert {"rewards/step", "episode_lengths/step", "losses/a_loss", "scores/mean",
            "performance/rl_update_time"} == set(games.columns) - {"step", "wall_time"}
    assert games["step"].min() == 16384 and games["step"].max() == 60 * 16384  # frames only
    assert ("rewards/iter, rewards/time, episode_lengths/iter, episode_lengths/time, scores/time left out: the "
            "values of rewards/step, episode_lengths/step, scores/mean again, against iterations and seconds of "
            "training") in " ".join(games.attrs["notes"])
    rsl = read_log(tmp_path / "rsl_rl", wide=True)
    assert "Train/mean_reward/time" not in rsl.columns and "Train/mean_episode_length/time" in rsl.columns
    assert rsl.dropna(subset=["Train/mean_reward"])["step"].tolist() == list(range(1, 61))
    assert not any(note.startswith("Train/mean_reward/time:") for note in rsl.attrs["notes"])  # no "values at one step"
    judged = json.loads(_cli("check-convergence", tmp_path / "rl_games", "--format", "json").stdout)["results"]
    assert sorted(row["name"] for row in judged) == ["episode_lengths/step", "losses/a_loss", "rewards/step",
                                                        "scores/mean"]


def test_a_folder_of_monitor_files_says_the_tensorboard_runs_beside_them_were_not_read(tmp_path):
    """SB3 with Monitor and tensorboard_log writes 0.monitor.csv and PPO_1/events.out.tfevents.*
    into one folder (a real Breakout project's logs/ held DQN_1 ... DQN_4 beside its monitor
    file): the folder read as its monitor files, the losses and rollout/ means of the event
    files unsaid."""
    pytest.importorskip("tensorboard")
    from tensorboard.compat.proto import event_pb2, summary_pb2
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    shutil.copy(FIXTURES / "monitor" / "0.monitor.csv", tmp_path / "0.monitor.csv")
    for run in ("PPO_1", "PPO_2"):
        writer = EventFileWriter(str(tmp_path / run))
        for step in range(1, 6):
            writer.add_event(event_pb2.Event(wall_time=1.7e9 + step, step=step * 2048, summary=summary_pb2.Summary(
                value=[summary_pb2.Summary.Value(tag="train/loss", simple_value=1.0 / step)])))
        writer.close()
    wide = read_log(tmp_path, wide=True)
    assert wide.attrs["format"] == "monitor"
    assert ("the monitor files were read; the TensorBoard event files beside them (PPO_1, PPO_2) were not: "
            "pass --input-format tensorboard") in " ".join(wide.attrs["notes"])
    events = read_log(tmp_path, format="tensorboard", wide=True)
    assert set(events["run"]) == {"PPO_1", "PPO_2"} and "train/loss" in events.columns
    assert not any("TensorBoard" in note for note in read_log(tmp_path, format="monitor", wide=True).attrs["notes"])


def test_a_wandb_run_summary_is_refused_with_where_the_series_is(tmp_path):
    # wandb/run-*/files/wandb-summary.json holds each metric's last value: "expected a JSON
    # list of records" said nothing of what the file is or where the series is
    path = tmp_path / "wandb-summary.json"
    path.write_text('{"_step": 999, "_runtime": 3600.5, "_timestamp": 1700003600.1, "train/loss": 0.31, '
                    '"_wandb": {"runtime": 3600}}')
    with pytest.raises(InputError, match=r"a W&B run summary: each metric's last value \(at _step 999\), "
                                         r"not the series\. Export the run's history"):
        read_log(path)
    (tmp_path / "other.json").write_text('{"a": 1, "b": 2}')  # any other lone object: a summary, said so
    with pytest.raises(InputError, match="holds one value per key"):
        read_log(tmp_path / "other.json")


def test_a_wandb_run_folder_is_read_from_the_console_output_it_saved(tmp_path):
    """wandb/run-<time>-<id>/files/ holds output.log (the run's console output: here SB3's
    printed tables), wandb-summary.json (last values) and wandb-metadata.json: the folder was
    "a directory with no log swarmstats recognises".  Without output.log, the folder says it
    holds a summary, not the series."""
    files = tmp_path / "run-20241130_101500-abc123" / "files"
    files.mkdir(parents=True)
    shutil.copy(Path(__file__).resolve().parent.parent / "examples" / "data" / "sb3-stdout.txt", files / "output.log")
    (files / "wandb-summary.json").write_text('{"_step": 109, "_runtime": 60.0, "_wandb": {"runtime": 60}}')
    (files / "wandb-metadata.json").write_text('{"os": "Linux"}')
    for folder in (files, files.parent):
        wide = read_log(folder, wide=True)
        assert wide.attrs["format"] == "sb3-console" and len(wide) == 110
        assert "the run's console output that W&B saved" in wide.attrs["notes"][0]
    (files / "output.log").unlink()
    with pytest.raises(InputError, match="is a W&B run summary"):
        read_log(files)


def test_the_printed_pairs_sniff_passes_over_json_lines(monkeypatch):
    """A JSON-lines log's lines hold ": " and often "=", so each of a head's lines went through
    the printed-record parser before the JSON reader had its turn (3.8 ms of a 33 KB verifiers
    results file's ~12 ms read); a line that is a JSON object is no printed record."""
    from swarmstats.io.formats import printed_pairs

    head = (FIXTURES.parent / "real" / "verifiers" / "wordle-gpt-5-mini-results.jsonl").read_text()[:65536]
    parsed = []
    monkeypatch.setattr(printed_pairs, "parse_line", lambda line: parsed.append(line))
    assert not printed_pairs.is_printed_head(head, "results.jsonl") and parsed == []
    # a printed record after a JSON line is still one
    monkeypatch.undo()
    assert printed_pairs.is_printed_head('{"config": 1}\nstep=1 loss=0.5\nstep=2 loss=0.4\n', "train.log")


def test_a_simulations_rounds_ticks_and_generations_are_its_step(tmp_path):
    # a round column logged every 10 rounds was a counter left out, and the slope was per 100
    # rows: "+0.5 per 100 steps" where cooperation rose 0.05 per 100 rounds
    table = tmp_path / "sim.csv"
    table.write_text("round,cooperation\n" + "".join(f"{r},{0.2 + r / 2000:.4f}\n" for r in range(0, 1000, 10)))
    done = cli("check-convergence", table, "--format", "json")
    (row,) = json.loads(done.stdout)["results"]
    assert row["name"] == "cooperation" and row["trend_slope"] == pytest.approx(0.0005, rel=1e-6)
    assert row["step_unit"] == "rounds" and row["warmup_step"] == 500 and "round (a counter)" not in done.stderr
    # and printed: "Round 12: cooperation rate 0.53, ...", "Generation 5: best fitness = ...",
    # "tick 10: wealth gini ..." were refused ("no numeric metric column")
    printed = {
        "rounds.log": ([f"Round {i}: cooperation rate 0.{50 + i % 7}, mean payoff {2 + i / 50:.2f}" for i in range(1, 41)],
                       "cooperation rate", list(range(1, 41)), "rounds"),
        "ga.log": ([f"Generation {i}: best fitness = {0.5 + i / 100:.3f}, mean fitness = {0.3 + i / 120:.3f}"
                    for i in range(40)], "mean fitness", list(range(40)), "generations"),
        "abm.log": ([f"tick {10 * i}: wealth gini {0.3 + i / 200:.3f}, agents alive {100 - i}" for i in range(40)],
                    "wealth gini", list(range(0, 400, 10)), "ticks"),
    }
    for name, (lines, metric, steps, unit) in printed.items():
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n")
        wide = read_log(path, wide=True)
        assert metric in wide.columns and wide["step"].tolist() == steps and wide.attrs["step_unit"] == unit, name
