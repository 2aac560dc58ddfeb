// A kafkajs consumer of claim-checked records: a value the Java serializer checked in carries a
// ref, which is redeemed through the claim gateway; an inline value is used as it is.
//
//   BROKERS=localhost:9092 TOPIC=orders GROUP=orders-reader \
//   GATEWAY_URL=http://127.0.0.1:8080 GATEWAY_TOKEN=demo-token node consumer.js
//
// For each message it prints one line, `record <partition> <offset> <ref|inline> <length> <sha256>`,
// and with EXPECT=n it stops (exit 0) once n messages were handled, or exits 1 after
// TIMEOUT_MS (default 120 s). The gateway module's KafkajsConsumerIT runs it against the
// embedded broker and a gateway and compares the digests with what the Java producer sent.
import { createHash } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import * as cc from '../../claimcheck.js';

const env = (name, fallback) => {
  const v = process.env[name] ?? fallback;
  if (v === undefined) throw new Error(`${name} is not set`);
  return v;
};
const topic = env('TOPIC');
const expect = Number(env('EXPECT', '0'));
const timeoutMs = Number(env('TIMEOUT_MS', '120000'));

const gateway = new cc.GatewayClient(env('GATEWAY_URL'), env('GATEWAY_TOKEN'));
const kafka = new Kafka({
  clientId: 'claimcheck-kafkajs-example',
  brokers: env('BROKERS').split(','),
  logLevel: logLevel.WARN,
});
const consumer = kafka.consumer({ groupId: env('GROUP', 'claimcheck-kafkajs-example') });

let handled = 0;
let finish;
const done = new Promise((resolve) => { finish = resolve; });
const timer = setTimeout(() => finish(1), timeoutMs);

await consumer.connect();
await consumer.subscribe({ topics: [topic], fromBeginning: true });
await consumer.run({
  eachMessage: async ({ partition, message }) => {
    let payload;
    let kind;
    try {
      const ref = cc.refFromRecord(message.value, message.headers);
      kind = ref === null ? 'inline' : 'ref';
      payload = ref === null ? message.value : await gateway.redeem(message.value, { deadlineMs: 30_000 });
    } catch (e) {
      if (e instanceof cc.Unavailable) throw e; // retriable: kafkajs retries, nothing is committed
      if (e instanceof cc.MalformedRef && e.needsNewerReader) throw e; // upgrade, never skip
      console.error('dead letter', topic, partition, message.offset, e.message); // final answers
      return;
    }
    const digest = createHash('sha256').update(payload).digest('hex');
    console.log(`record ${partition} ${message.offset} ${kind} ${payload.length} ${digest}`);
    handled++;
    if (expect > 0 && handled >= expect) finish(0);
  },
});

const code = await done;
clearTimeout(timer);
if (code !== 0) console.error(`timed out after ${timeoutMs} ms with ${handled} of ${expect} messages`);
await consumer.disconnect();
process.exit(code);
