#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A job that outlives its harness (tests/harness/breaks.sh kills it).
sleep 600
