// "Try with sample traces": a small synthetic profiler-output folder, generated here
// so a newcomer can see a merge without data of their own. Deterministic: the same
// bytes every time. It mimics what real writers produce:
//   sample_job/framework/pevents/<hour>/<end_us>_algo-1_pythontimeline.json  smdebug, steps 0..11
//   sample_job/framework/pevents/<hour>/<end_us>_algo-1_model_timeline.json  smdebug C++ writer, unsorted
//   sample_job/system/incremental/<hour>/<epoch_s>.algo-1.json              JSON lines, CPU + GPU
//   sample_job/pytorch/algo-1.pt.trace.json                                Kineto, baseTimeNanoseconds
//   sample_job/ranks/host-{a,b}/rank{0,1}.pt.trace.json                     two ranks, clocks 400 µs apart
//
//   sampleJob() → [{ name, data: Uint8Array }]

const T0 = 1710408413000000;         // 2024-03-14 09:26:53 UTC, in µs
const STEPS = 12;
const WARMUP = 310000;               // µs before step 0
const HOUR = '2024031409';
const NODE = 'algo-1';

function random(seed) {              // a small LCG: the sample must not change between runs
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

// Start and duration of every step (relative µs from T0).
function stepTimes() {
  const rnd = random(7);
  const steps = [];
  let t = WARMUP;
  for (let i = 0; i < STEPS; i++) {
    const dur = Math.round((i === 0 ? 140000 : 82000) + rnd() * 9000);
    steps.push({ step: i, start: t, dur });
    t += dur + Math.round(400 + rnd() * 300);
  }
  return steps;
}

const json = (v) => JSON.stringify(v);
const lines = (records) => `[\n${records.map(json).join(',\n')}\n]\n`;

function header(start) {
  return [
    { name: 'process_name', ph: 'M', pid: 0, args: { start_time_since_epoch_in_micros: start } },
    { name: 'process_sort_index', ph: 'M', pid: 0, args: { sort_index: 0 } },
  ];
}

function pythonTimeline(steps) {
  const rnd = random(11);
  const ev = [...header(T0),
    { name: 'process_name', ph: 'M', pid: 1, args: { name: 'Step:ModeKeys.TRAIN' } },
    { name: 'process_name', ph: 'M', pid: 2, args: { name: 'Python: train.py' } }];
  for (const s of steps) {
    ev.push({ name: 'Step:ModeKeys.TRAIN', pid: 1, ph: 'X', ts: s.start, dur: s.dur, args: { pid: 4242, step_num: String(s.step) } });
    // forward / backward / optimizer inside the step, as a Python profiler sees them
    const fwd = Math.round(s.dur * (0.33 + rnd() * 0.04));
    const bwd = Math.round(s.dur * (0.45 + rnd() * 0.04));
    const opt = s.dur - fwd - bwd - 900;
    let t = s.start + 300;
    for (const [name, dur] of [['model.forward', fwd], ['loss.backward', bwd], ['optimizer.step', opt]]) {
      ev.push({ name, pid: 2, ph: 'X', ts: t, dur, args: { step_num: String(s.step) } });
      t += dur + 200;
    }
  }
  return ev;
}

function modelTimeline(steps) {
  const rnd = random(23);
  const ev = [...header(T0 - 1500),
    { name: 'process_name', ph: 'M', pid: 1, args: { name: 'DataIterator' } },
    { name: 'process_name', ph: 'M', pid: 2, args: { name: 'Framework ops' } }];
  const ops = ['Conv2D', 'BatchNorm', 'Relu', 'MaxPool', 'MatMul', 'Softmax'];
  for (const s of steps) {
    const base = s.start + 1500;  // this writer's clock starts 1.5 ms earlier
    ev.push({ ph: 'X', name: 'dataset::GetNext', ts: base + 100, pid: 1, dur: Math.round(2500 + rnd() * 1500) });
    let t = base + 4200;
    for (let k = 0; k < 14; k++) {
      const dur = Math.round(1200 + rnd() * 3800);
      ev.push({ ph: 'X', name: ops[k % ops.length], ts: t, pid: 2, dur, args: { step: s.step } });
      t += dur + Math.round(rnd() * 400);
    }
  }
  // The C++ writer flushes out of order: shuffle the events after the header, deterministically.
  const head = ev.splice(0, 4);
  for (let i = ev.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [ev[i], ev[j]] = [ev[j], ev[i]];
  }
  return [...head, ...ev];
}

function systemMetrics(steps) {
  const rnd = random(5);
  const end = steps.at(-1).start + steps.at(-1).dur + 100000;
  const out = [];
  for (let t = 0; t <= end; t += 50000) {
    const ts = (T0 + t) / 1e6;
    const busy = steps.some((s) => t >= s.start && t < s.start + s.dur);
    for (let cpu = 0; cpu < 4; cpu++) {
      out.push({ Type: 'cpu', Name: `cpu${cpu}`, Dimension: 'CPUUtilization', Value: +(busy ? 35 + rnd() * 40 : 5 + rnd() * 8).toFixed(2), NodeId: NODE, Timestamp: ts });
    }
    out.push({ Type: 'gpu', Name: 'gpu0', Dimension: 'GPUUtilization', Value: +(busy ? 70 + rnd() * 28 : rnd() * 3).toFixed(1), NodeId: NODE, Timestamp: ts });
    out.push({ Type: 'gpu', Name: 'gpu0', Dimension: 'GPUMemoryUtilization', Value: +(busy ? 61 + rnd() * 4 : 12).toFixed(1), NodeId: NODE, Timestamp: ts });
  }
  return `${out.map(json).join('\n')}\n`;
}

function kinetoTrace(steps) {
  const rnd = random(31);
  const PID = 4242;
  const base = T0 * 1000;  // baseTimeNanoseconds; event ts are µs relative to it
  const ev = [
    { name: 'process_name', ph: 'M', ts: 0, pid: PID, tid: 0, args: { name: 'python3 train.py' } },
    { name: 'thread_name', ph: 'M', ts: 0, pid: PID, tid: PID, args: { name: 'thread 4242 (python3)' } },
    { name: 'process_name', ph: 'M', ts: 0, pid: 0, tid: 0, args: { name: 'GPU 0' } },
    { name: 'thread_name', ph: 'M', ts: 0, pid: 0, tid: 7, args: { name: 'stream 7' } },
  ];
  const kernels = ['volta_sgemm_128x64_nn', 'cudnn::bn_fw_tr_1C11_kernel', 'elementwise_kernel', 'reduce_kernel'];
  let flow = 1;
  for (const s of steps) {
    const t0 = s.start + 40;
    ev.push({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${s.step}`, pid: PID, tid: PID, ts: t0, dur: s.dur - 80, args: { 'External id': flow } });
    let t = t0 + 500;
    for (let k = 0; k < 8; k++) {
      const op = k % 2 ? 'aten::addmm' : 'aten::conv2d';
      const dur = +(900 + rnd() * 2200).toFixed(3);
      ev.push({ ph: 'X', cat: 'cpu_op', name: op, pid: PID, tid: PID, ts: +t.toFixed(3), dur, args: { 'External id': flow + 1 } });
      const launch = +(t + 40).toFixed(3);
      ev.push({ ph: 'X', cat: 'cuda_runtime', name: 'cudaLaunchKernel', pid: PID, tid: PID, ts: launch, dur: 6.5, args: { correlation: flow } });
      const kts = +(launch + 30 + rnd() * 200).toFixed(3);
      ev.push({ ph: 'X', cat: 'kernel', name: kernels[k % kernels.length], pid: 0, tid: 7, ts: kts, dur: +(dur * 1.6).toFixed(3), args: { correlation: flow, stream: 7, device: 0 } });
      ev.push({ ph: 's', id: flow, pid: PID, tid: PID, ts: launch, cat: 'ac2g', name: 'ac2g' });
      ev.push({ ph: 'f', id: flow, pid: 0, tid: 7, ts: kts, cat: 'ac2g', name: 'ac2g', bp: 'e' });
      flow++;
      t += dur + 300 + rnd() * 500;
    }
  }
  ev.push({ name: 'Record Window End', ph: 'i', s: 'g', pid: '', tid: '', ts: steps.at(-1).start + steps.at(-1).dur + 1000 });
  return `{\n  "schemaVersion": 1,\n  "baseTimeNanoseconds": ${base},\n  "traceEvents": ${lines(ev)},\n  "traceName": "algo-1.pt.trace.json"\n}\n`;
}

// Two PyTorch ranks on two hosts whose clocks are CLOCK_APART µs apart (host-b's runs
// ahead): what a distributed job's Kineto traces look like (distributedInfo.rank, host_name,
// ProfilerStep#N, NCCL all-reduce kernels on a GPU stream, record_param_comms with the
// collective's name, sequence number and process group). Each all-reduce ENDS at one true
// instant on both ranks (±2 µs), whenever each rank arrived: so the core measures how far
// apart the clocks are (a CLOCK_SKEW warning) and --align clocks lines them up. As
// tests/bench/gen_ranks.py writes them, smaller.
const CLOCK_APART = 400;
const ALLREDUCE = 'ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)';

function rankTraces(steps) {
  const rnd = random(43);
  // The true end of every collective: eight per step, over its second half.
  const ends = steps.map((s) => [0.5, 0.56, 0.62, 0.68, 0.74, 0.8, 0.86, 0.92].map((f) => s.start + Math.round(s.dur * f + rnd() * 1000)));
  return [['host-a', 0, 0], ['host-b', 1, CLOCK_APART]].map(([host, rank, clock]) => {
    const cpu = 2000 + rank;
    const gpu = 0;  // each rank its own GPU 0 on its host
    const ev = [
      { ph: 'M', name: 'process_name', pid: cpu, tid: 0, args: { name: 'python3' } },
      { ph: 'M', name: 'process_labels', pid: cpu, tid: 0, args: { labels: 'CPU' } },
      { ph: 'M', name: 'process_name', pid: gpu, tid: 0, args: { name: 'python3' } },
      { ph: 'M', name: 'process_labels', pid: gpu, tid: 0, args: { labels: `GPU ${gpu}` } },
      { ph: 'M', name: 'thread_name', pid: gpu, tid: 20, args: { name: 'stream 20' } },
    ];
    const at = (t) => +(t + clock).toFixed(3);  // what this host's clock says at true time t
    let seq = 0;
    steps.forEach((s, k) => {
      const t0 = s.start + 60 + rnd() * 150;
      // rank 1 is the slow one now and then (steps 2, 5, 8, 11): busy longer before each
      // all-reduce, it arrives last at every one, and rank 0 waits for it — the steps panel names it
      const slow = k % 3 === 2;
      const dur = s.dur - 400 + rnd() * 600;
      ev.push({ ph: 'X', cat: 'user_annotation', name: `ProfilerStep#${s.step}`, pid: cpu, tid: cpu, ts: at(t0), dur: +dur.toFixed(3), args: {} });
      ev.push({ ph: 'X', cat: 'kernel', name: 'volta_sgemm_128x64_nn', pid: gpu, tid: 20, ts: at(t0 + 900), dur: +(s.dur * 0.4).toFixed(3), args: { device: gpu, stream: 20 } });
      for (const end of ends[k]) {
        const arrive = end - 80 - (slow ? (rank === 1 ? rnd() * 100 : 1500 + rnd() * 1500) : rnd() * 1500);
        ev.push({ ph: 'X', cat: 'cpu_op', name: 'record_param_comms', pid: cpu, tid: cpu, ts: at(arrive + 1), dur: 20.25,
          args: { 'External id': seq, 'Collective name': 'allreduce', Seq: seq, 'Process Group Name': '0' } });
        const kstart = arrive + 40;
        const jitter = (rnd() - 0.5) * 4;  // ±2 µs
        ev.push({ ph: 'X', cat: 'kernel', name: ALLREDUCE, pid: gpu, tid: 20, ts: at(kstart), dur: +(end + jitter - kstart).toFixed(3),
          args: { 'External id': seq, device: gpu, stream: 20 } });
        seq++;
      }
    });
    const trace = { schemaVersion: 1, distributedInfo: { backend: 'nccl', rank, world_size: 2 }, host_name: host,
      baseTimeNanoseconds: T0 * 1000, traceEvents: ev, traceName: `rank${rank}` };
    return { name: `sample_job/ranks/${host}/rank${rank}.pt.trace.json`, text: JSON.stringify(trace) };
  });
}

/**
 * The sample job's files (see the top of this file), the same bytes every time:
 *   sampleJob() → [{ name, data: Uint8Array }]
 * @returns {{ name: string, data: Uint8Array }[]}
 */
export function sampleJob() {
  const steps = stepTimes();
  const endUs = T0 + steps.at(-1).start + steps.at(-1).dur + 2000;
  const enc = new TextEncoder();
  const pevents = `sample_job/framework/pevents/${HOUR}`;
  return [
    { name: `${pevents}/${endUs}_${NODE}_pythontimeline.json`, data: enc.encode(lines(pythonTimeline(steps))) },
    { name: `${pevents}/${endUs + 113}_${NODE}_model_timeline.json`, data: enc.encode(lines(modelTimeline(steps))) },
    { name: `sample_job/system/incremental/${HOUR}/${Math.floor(T0 / 1e6)}.${NODE}.json`, data: enc.encode(systemMetrics(steps)) },
    { name: `sample_job/pytorch/${NODE}.pt.trace.json`, data: enc.encode(kinetoTrace(steps)) },
    ...rankTraces(steps).map(({ name, text }) => ({ name, data: enc.encode(text) })),
  ];
}
