#!/usr/bin/env bash
# Session 49, calls 3 and 4 (the H100 of call 2, warm; its build-gpu is call 2's change, the one-warp combine,
# whose split-count timings matched the base's in call 2). How B 1 L 128k's time depends on the split count
# (call 2: 32 splits 2.1 us faster than the library's 33 on both builds), and whether that holds at lengths
# that are not powers of two. Run as two device commands; their output is output.txt.
export PYTHONPATH=build-gpu/python
# call 3
for s in 33 32 31 30 24 16 32 33; do
  echo "== splits $s: $(timeout 30 python3 bench/decode_once.py --batch 1 --length 131072 --num-splits $s --time 60 2>&1 |
    grep -E 'peers.time|back to back:' | tr '\n' ' ')"
done
for s in 0 8 16 32; do
  echo "== B4 L32k splits $s: $(timeout 30 python3 bench/decode_once.py --batch 4 --length 32768 --num-splits $s --time 60 2>&1 |
    grep -E 'num_splits|peers.time' | sed 's/.*num_splits.: \([0-9]*\).*/n=\1/' | tr '\n' ' ')"
done
echo "== cudnn B1: $(timeout 30 python3 bench/decode_once.py --impl cudnn --batch 1 --length 131072 --time 60 2>&1 |
  grep -E 'peers.time')"
# call 4
for len in 130000 126000 131072; do
  for s in 33 32 33 32; do
    echo "== L $len splits $s: $(timeout 30 python3 bench/decode_once.py --batch 1 --length $len --num-splits $s \
      --time 60 2>&1 | grep -E 'peers.time|graph replay' | tr '\n' ' ')"
  done
done
