#!/usr/bin/python3
"""Where a press's time goes, from an ftrace of the guest (run-e2e's benchmark).

Usage: tap-trace.py TRACE DAEMON_COMM...

TRACE is the text of /sys/kernel/tracing/trace with the events sched_switch, sys_exit_epoll_wait
(or sys_exit_poll, for a daemon that polls: keyd), sys_exit_read, sys_enter_write and
sys_exit_write enabled, taken while `probe latency-mix` tapped its paths in turn. The probe makes
the paths' sources in their order, so their file descriptors rise in it: the presses on the
lowest one are the first path's, whose daemon is the first DAEMON_COMM (a thread's name), and so
on. A press is a write of the probe to a source after which the probe reads the output (it waits
for a press, not for a release). For each press, the daemon's first write after its read splits
the way into: the probe's write until the daemon runs, until its wait (epoll_wait or poll)
returns, until its read returns, its own work until its write enters the kernel, and that write
(the output's timestamp is taken in it). Prints a line per path, in microseconds:
"presses N: source write -> daemon runs P50 (P90), ..."
"""
import re
import sys

LINE = re.compile(r'\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+):\s+(.*)')
STEPS = [('wake', 'source write -> daemon runs'), ('epoll', 'its wait returns'), ('read', 'read returns'),
         ('work', 'its own work until its write'), ('write', 'the write')]


def events(path):
    with open(path) as f:
        for line in f:
            m = LINE.match(line)
            if m:
                yield m.group(1), float(m.group(3)) * 1e6, m.group(4)


def source_writes(evs):
    """Where the probe wrote to its sources: one event and SYN_REPORT, 48 bytes (ftrace prints hex)."""
    return [i for i, (comm, _, what) in enumerate(evs)
            if comm == 'probe' and what.startswith('sys_write(fd: ') and 'count: 30)' in what]


def presses(evs, writes, fd, daemon):
    """Each press on the source `fd` (`writes`: `source_writes(evs)`): how long each step took."""
    for k, i in enumerate(writes):
        if source_fd(evs[i][2]) != fd:
            continue
        end = writes[k + 1] if k + 1 < len(writes) else len(evs)
        span = evs[i + 1:end]
        if not any(comm == 'probe' and what.startswith('sys_read ->') for comm, _, what in span):
            continue   # a release: the probe does not wait for it
        t = {'source': evs[i][1]}
        for comm, time, what in span:
            if 'on' not in t and f'next_comm={daemon} ' in what:
                t['on'] = time
            elif comm != daemon or 'on' not in t:
                continue
            elif 'epoll' not in t and what.startswith(('sys_epoll_wait ->', 'sys_poll ->')):
                t['epoll'] = time
            elif 'epoll' in t and 'read' not in t and what.startswith('sys_read -> 0x'):
                t['read'] = time
            elif 'read' in t and 'write' not in t and what.startswith('sys_write('):
                t['write'] = time
            elif 'write' in t and what.startswith('sys_write ->'):
                t['written'] = time
                break
        if len(t) == 6:
            yield {'wake': t['on'] - t['source'], 'epoll': t['epoll'] - t['on'], 'read': t['read'] - t['epoll'],
                   'work': t['write'] - t['read'], 'write': t['written'] - t['write']}


def source_fd(what):
    return int(what[len('sys_write(fd: '):].split(',')[0], 16)


def percentile(values, p):
    values = sorted(values)
    return values[int((len(values) - 1) * p)]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.split('\n\n')[1])
    evs = list(events(sys.argv[1]))
    writes = source_writes(evs)
    fds = sorted({source_fd(evs[i][2]) for i in writes})
    status = 0
    for k, daemon in enumerate(sys.argv[2:]):
        found = list(presses(evs, writes, fds[k], daemon)) if k < len(fds) else []
        if not found:
            print('presses 0: none found in the trace')
            status = 1
            continue
        parts = [f'{label} {percentile([p[key] for p in found], .5):.0f} ({percentile([p[key] for p in found], .9):.0f})'
                 for key, label in STEPS]
        print(f'presses {len(found)}: ' + ', '.join(parts))
    return status


if __name__ == '__main__':
    sys.exit(main())
