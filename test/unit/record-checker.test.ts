/** The record thread: answers as the record check itself does, and fails each body as the client must judge it. */
import { afterEach, describe, expect, it } from 'vitest';
import { BodyFault, ValidationError } from '../../src/errors.js';
import { encodeJson } from '../../src/json/encode.js';
import { TooDeepError } from '../../src/json/scan.js';
import { checkPulledRecord, type RecordJob } from '../../src/sync/record.js';
import { RecordChecker } from '../../src/sync/record-checker.js';

const item = { id: '7', name: 'web-07', os_id: '1', ip: '10.0.0.7' };
const single = { ...item, ip: null, hypervisor_name: 'hv-Zürich' };
const policy = { servers: { drop: [], mask: ['hypervisor_name'], maskUrlCredentials: [] } };
const job = (id: string, body: string, listItem: object = { ...item, id }): RecordJob => ({
  resource: 'servers',
  id,
  path: `/servers/${id}.json`,
  body: Buffer.from(body),
  item: Buffer.from(JSON.stringify(listItem)),
});

describe('checkPulledRecord', () => {
  it('publishes a body nothing is redacted from as encodeJson of its parse, byte for byte, whether re-indented as sent or encoded again', () => {
    const server = (rest: string) => `{"server": {"id": "7", "name": "web-07", "os_id": "1", "ip": "10.0.0.7"${rest}}}`;
    const [before, after] = server('').split('-07');
    const bodies = [
      server(''),
      server(',"notes":"caf\\u00e9 \\/ \\n \\" \\\\","tags":[],"meta":{},"deep":[[1,[2,{}]],{"a":[]}]'),
      server(',"n":[0,-0,1.50,1e3,1E-7,0.000001,12345678901234567890,-12.5e-3,3.14]'),
      server(',"name":"again"'),
      server(',"disk_gb":1e400'),
      `{\n\t"server" :\r\n  {"id":"7",  "name":"web-07","os_id":"1","ip":null, "x": true, "y": false}  }`,
      server(',"2":"an index key","ünï":"côdé 日本"'),
    ].map((body) => Buffer.from(body));
    // Not UTF-8: published with U+FFFD, as the parse gives it.
    bodies.push(Buffer.concat([Buffer.from(before!), Buffer.from([0xff]), Buffer.from(after!)]));
    for (const body of bodies) {
      const checked = checkPulledRecord({ resource: 'servers', id: '7', path: '/servers/7.json', body, item: Buffer.from(JSON.stringify(item)) }, undefined);
      expect(checked.bytes.toString('utf8'), body.toString('utf8')).toBe(encodeJson(JSON.parse(body.toString('utf8'))).toString('utf8'));
    }
  });
});

describe('RecordChecker', () => {
  let checker: RecordChecker | undefined;
  afterEach(async () => {
    await checker?.close();
    checker = undefined;
  });

  it('answers every record of a batch with what checking it here gives: findings, shape, file and digest', async () => {
    checker = new RecordChecker(policy);
    // A number too large for a double, which only the bytes show.
    const jobs = Array.from({ length: 200 }, (_, n) => job(String(n), JSON.stringify({ server: { ...single, id: String(n), ...(n % 3 ? { extra: [n] } : {}) } }).replace(/\}\}$/, ',"disk_gb":1e400}}')));
    const answers = await Promise.all(jobs.map((j) => checker!.check(j)));
    for (const [n, answer] of answers.entries()) {
      const here = checkPulledRecord(jobs[n]!, policy);
      expect(answer).toEqual(here);
    }
    const first = answers[0]!;
    expect(first.findings.map((f) => `${f.field}:${f.code}`)).toEqual(expect.arrayContaining(['ip:null', 'disk_gb:out_of_range']));
    expect(first.bytes.toString()).not.toContain('Zürich');
    expect(answers[1]!.singleOnly).toContain('extra');
    expect(first.singleOnly).not.toContain('extra');
    expect(first.bytes.toString()).toMatch(/^\{\n {2}"server": \{\n/);
  });

  it('fails a body as the client judges it: retried when it may come right, refused when it cannot', async () => {
    checker = new RecordChecker(undefined);
    const results = await Promise.allSettled([
      checker.check(job('1', '<html>login</html>')),
      checker.check(job('2', '{"servers": []}')),
      checker.check(job('3', JSON.stringify({ server: { ...item, id: '4' } }))),
      checker.check(job('5', `{"server": ${'['.repeat(150)}${']'.repeat(150)}}`)),
      checker.check(job('6', JSON.stringify({ server: { ...item, id: '6' } }))),
    ]);
    const reason = (n: number) => (results[n] as PromiseRejectedResult).reason as Error;
    expect(reason(0)).toBeInstanceOf(SyntaxError);
    expect(reason(1)).toBeInstanceOf(BodyFault);
    expect(reason(1).message).toBe('GET /servers/2.json: envelope key "server" is missing (keys: "servers")');
    expect(reason(2)).toBeInstanceOf(ValidationError);
    expect(reason(2).message).toContain('not the "3" that was asked for');
    expect(reason(3)).toBeInstanceOf(TooDeepError);
    expect(results[4].status).toBe('fulfilled');
  });
});
