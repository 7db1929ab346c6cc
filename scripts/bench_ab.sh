#!/bin/bash
# Simultaneous before/after: two checkouts' clients (A = before, B = after, each its .venv's python)
# run the same workload at the same moment, 4 worker processes each, 10 s, each side on its own
# queue (the spec's schema, installed beforehand with that checkout's `qgen render` + install.sql;
# the specs name the queue testq with one filler string(400) column). On a shared machine whose
# load swings, both sides see the same load, so after/before is the change (BENCHMARKS.md).
#   scripts/bench_ab.sh LOG A_PYTHON A_SPEC B_PYTHON B_SPEC ROUNDS "lease:1 lease:10 delete:1 enqueue:10 ..."
# QGEN_AB_URL: the database (default the shared one). Queues are topped up to 100,000 (250,000 at
# batch 100) claimable jobs before each claim case.
LOG=$1; APY=$2; ASPEC=$3; BPY=$4; BSPEC=$5; ROUNDS=$6; CASES=$7
P="psql ${QGEN_AB_URL:-postgresql://postgres@127.0.0.1:5432/test} -qAt"
for round in $(seq 1 $ROUNDS); do
for case in $CASES; do
  mode=${case%:*}; b=${case#*:}
  for spec in $ASPEC $BSPEC; do
    s=$(awk '/^schema:/{print $2}' $spec)
    if [ $mode = enqueue ]; then continue; fi
    n=$($P -c "select count(*) from $s.testq where lease_token is null" 2>/dev/null || $P -c "select count(*) from $s.testq")
    want=$(( b == 100 ? 250000 : 100000 ))
    [ "$n" -lt "$want" ] && $P -c "select count(*) from (select $s.testq_enqueue(repeat('x',400)) from generate_series(1,$((want-n)))) x" >/dev/null
  done
  $P -c "checkpoint" >/dev/null
  d=$(mktemp -d /tmp/qgen-ab.XXXX)
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  $APY "$(dirname "$0")/bench_ab_worker.py" $ASPEC $mode $b $d a 10 > $d/a &
  $BPY "$(dirname "$0")/bench_ab_worker.py" $BSPEC $mode $b $d b 10 > $d/b &
  while [ $(ls $d | grep -c ready) -lt 8 ]; do sleep 0.2; done
  python3 -c "import time; print(time.time()+1)" > $d/go.tmp; mv $d/go.tmp $d/go
  wait
  a=$(cat $d/a); bb=$(cat $d/b)
  echo "round $round $mode batch $b before $a after $bb after/before $(python3 -c "print(round($bb/max(1,$a),2))") load $load / $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a $LOG
  rm -rf $d
done; done
