/**
 * A rank's side of several rails: one link source per rail (a TcpTransport listening on this
 * node's address on that rail, or a simulated rail), and one {@link MultiRailLink} per peer on
 * top. Anything that makes links works as a rail; nothing here knows the protocol above.
 *
 * Frames received on any rail pass through here before the layer above sees them: frames
 * without FRAME_LINK go up unchanged; the link layer's own frames (rail-frames.ts) do not.
 * ANNOUNCEs open a frame (its header words are kept), SEGMENTs are handed up as pieces of that
 * frame (the kept header, with the piece's offset in the frame), with bytes that arrived before
 * (a segment sent again after a rail failure) dropped by the {@link SegmentTracker}, and each
 * segment is acknowledged once its last byte is in; ACKs go to the link that sent the segments.
 */
import type { Clock } from '../clock.js';
import type { RailPolicy } from '../policy/rail/types.js';
import { FRAME_HEADER_WORDS, FRAME_LINK, type InboundFrame, type Link, type LinkEvents } from '../transport/link.js';
import type { LinkSource } from '../transport/transport.js';
import { MultiRailLink, type MultiRailLinkOptions } from './multi-rail-link.js';
import { ACK_IDS, R_FRAME, R_FRAME_BYTES, R_LENGTH, R_OFFSET, R_SEGMENT, RailFrameType, railFrameType } from './rail-frames.js';
import type { RailSettings } from './rail-scheduler.js';
import { SegmentTracker } from './segment-tracker.js';

export interface MultiRailTransportOptions {
  rank: number;
  /** One link source per rail, rail 0 first (the control rail). */
  rails: readonly LinkSource[];
  settings: readonly RailSettings[];
  /** A policy per peer link (each link learns its own rails' state). */
  policy: (peer: number) => RailPolicy;
  clock: Clock;
  minSplit: number;
  ackTimeout: number;
  /** Seconds between attempts to open a failed rail again. @default 1 */
  retryInterval?: number;
  log: (line: string) => void;
}

export class MultiRailTransport implements LinkSource {
  private readonly options: MultiRailTransportOptions;
  private readonly links = new Map<number, MultiRailLink>();
  private readonly tracker = new SegmentTracker<Int32Array>();
  private readonly scratch: InboundFrame = { words: new Int32Array(FRAME_HEADER_WORDS), headerIndex: 0, bytes: new Uint8Array(0), payloadOffset: 0, payloadLength: 0, pieceOffset: 0 };
  private readonly ackIds: number[] = [];
  /** What every peer link shares. */
  private readonly linkOptions: MultiRailLinkOptions;
  /** Segment bytes dropped as duplicates (diagnostics and tests). */
  duplicateBytes = 0;
  /** Told of every segment a rail took (set by a rank that records its timeline). */
  segmentObserver: ((rail: number, peer: number, bytes: number) => void) | undefined = undefined;

  constructor(options: MultiRailTransportOptions) {
    this.options = options;
    this.linkOptions = {
      openRail: (peer, rail, railEvents) => this.options.rails[rail]!.createLink(peer, railEvents),
      rails: options.settings,
      clock: options.clock,
      minSplit: options.minSplit,
      ackTimeout: options.ackTimeout,
      ...(options.retryInterval !== undefined ? { retryInterval: options.retryInterval } : {}),
      log: options.log,
      rank: options.rank,
      onSegment: (rail, peer, bytes) => this.segmentObserver?.(rail, peer, bytes),
    };
  }

  get railCount(): number {
    return this.options.rails.length;
  }

  /** The link to `peer` (the same object for the endpoint and for acknowledgements). */
  createLink(peer: number, events: LinkEvents): Link {
    const link = this.linkTo(peer, events);
    link.setEvents(events);
    return link;
  }

  private linkTo(peer: number, events: LinkEvents): MultiRailLink {
    let link = this.links.get(peer);
    if (link === undefined) {
      link = new MultiRailLink(this.linkOptions, peer, this.options.policy(peer), events);
      this.links.set(peer, link);
    }
    return link;
  }

  pollStarts(): void {
    const rails = this.options.rails;
    for (let i = 0; i < rails.length; i++) rails[i]!.pollStarts?.();
  }

  attach(events: LinkEvents): void {
    this.options.rails.forEach((source, rail) => source.attach(this.receiveEvents(rail, events)));
  }

  private receiveEvents(rail: number, events: LinkEvents): LinkEvents {
    return {
      frame: (link, frame) => this.onFrame(link, frame, events),
      // Rail 0 carries the peer's control frames and ends with it (as `closed` below).
      opened: (link) => {
        if (rail === 0) events.opened?.(link);
      },
      arrived: (link) => events.arrived(link),
      drain: (link) => events.drain(link),
      closed: (link, error) => {
        // Rail 0 carries the peer's control frames: its end is the peer's end. A data rail's end
        // is the sender's to handle (it sends its segments again).
        if (rail === 0) events.closed(link, error);
        else if (error !== undefined) this.options.log(`tsmpi: rank ${this.options.rank}: rail ${rail} from rank ${link.peer} closed: ${error.message}`);
      },
    };
  }

  private onFrame(link: Link, frame: InboundFrame, events: LinkEvents): void {
    const w = frame.words;
    const h = frame.headerIndex;
    const word0 = w[h]!;
    if ((word0 & FRAME_LINK) === 0) {
      events.frame(link, frame);
      return;
    }
    const key = `${link.peer}:${w[h + R_FRAME]!}`;
    switch (railFrameType(word0)) {
      case RailFrameType.Announce: {
        const header = new Int32Array(FRAME_HEADER_WORDS);
        new Uint8Array(header.buffer).set(frame.bytes.subarray(frame.payloadOffset, frame.payloadOffset + FRAME_HEADER_WORDS * 4));
        this.tracker.open(key, w[h + R_FRAME_BYTES]!, header);
        return;
      }
      case RailFrameType.Segment: {
        const segmentStart = w[h + R_OFFSET]!;
        const segmentLength = w[h + R_LENGTH]!;
        const start = segmentStart + frame.pieceOffset;
        const accepted = this.tracker.accept(key, start, start + frame.payloadLength);
        let delivered = 0;
        if (accepted !== undefined) {
          const out = this.scratch;
          out.words = accepted.data;
          out.bytes = frame.bytes;
          for (const range of accepted.fresh) {
            out.pieceOffset = range.start;
            out.payloadOffset = frame.payloadOffset + (range.start - start);
            out.payloadLength = range.end - range.start;
            delivered += out.payloadLength;
            events.frame(link, out);
          }
        }
        this.duplicateBytes += frame.payloadLength - delivered;
        if (frame.pieceOffset + frame.payloadLength >= segmentLength) this.linkTo(link.peer, events).acknowledge(w[h + R_SEGMENT]!);
        return;
      }
      case RailFrameType.Ack: {
        const ids = this.ackIds;
        ids.length = 0;
        for (let i = 1; i <= ACK_IDS; i++) {
          const id = w[h + i]!;
          if (id !== 0) ids.push(id);
        }
        this.linkTo(link.peer, events).acked(ids);
        return;
      }
      default:
        this.options.log(`tsmpi: rank ${this.options.rank}: a rail frame of unknown type ${railFrameType(word0)} from rank ${link.peer} was dropped`);
    }
  }

  /** What each peer link's rails carried and how often they failed. */
  report(): { bytesSent: Record<number, number[]>; failures: Record<number, number[]>; learnt: Record<number, Record<string, unknown>>; resentSegments: number; duplicateBytes: number } {
    const bytesSent: Record<number, number[]> = {};
    const learnt: Record<number, Record<string, unknown>> = {};
    const failures: Record<number, number[]> = {};
    let resentSegments = 0;
    for (const [peer, link] of this.links) {
      bytesSent[peer] = link.scheduler.ackedBytes();
      failures[peer] = [...link.failures];
      learnt[peer] = link.policyState();
      resentSegments += link.scheduler.resent;
    }
    return { bytesSent, failures, learnt, resentSegments, duplicateBytes: this.duplicateBytes };
  }

  close(): void {
    for (const link of this.links.values()) link.close();
    for (const source of this.options.rails) source.close();
  }
}
