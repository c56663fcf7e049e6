/**
 * The TCP side of a rank with several rails: one TcpTransport per rail (a listener on this node's
 * address on that rail; connections from it to the peer's address on the same rail, so the route,
 * which the destination picks, stays on the rail), and one {@link MultiRailLink} per peer on top.
 *
 * Frames received on any rail pass through here before the endpoint sees them: RAIL_ACK frames
 * go to the link of the peer that sent them; RAIL_SEGMENT frames are turned back into DATA pieces,
 * with bytes that arrived before (a segment sent again after a rail failure) dropped by the
 * {@link SegmentTracker}, and acknowledged once their last byte is in. Everything else passes.
 */
import type { Clock } from '../clock.js';
import { FrameType, H_AUX, H_CONTEXT, H_LENGTH, H_SEQ, H_SOURCE, H_TOTAL, H_TYPE } from '../comm/frame-header.js';
import type { RailPolicy } from '../policy/rail/types.js';
import { FRAME_HEADER_WORDS, FRAME_SPLITTABLE, type InboundFrame, type Link, type LinkEvents } from '../transport/link.js';
import type { TcpTransport } from '../transport/tcp-transport.js';
import { ACK_WORDS, MultiRailLink } from './multi-rail-link.js';
import type { RailSettings } from './rail-scheduler.js';
import { SegmentTracker } from './segment-tracker.js';

export interface MultiRailTransportOptions {
  rank: number;
  /** One TcpTransport per rail, rail 0 first (the control rail). */
  rails: readonly TcpTransport[];
  settings: readonly RailSettings[];
  /** A policy per peer link (each link learns its own rails' state). */
  policy: (peer: number) => RailPolicy;
  clock: Clock;
  minSplit: number;
  ackTimeout: number;
  log: (line: string) => void;
}

export class MultiRailTransport {
  private readonly options: MultiRailTransportOptions;
  private readonly links = new Map<number, MultiRailLink>();
  private readonly tracker = new SegmentTracker();
  private readonly scratch: InboundFrame = { words: new Int32Array(FRAME_HEADER_WORDS), headerIndex: 0, bytes: new Uint8Array(0), payloadOffset: 0, payloadLength: 0, pieceOffset: 0 };
  private readonly ackIds: number[] = [];
  /** Segment bytes dropped as duplicates (diagnostics and tests). */
  duplicateBytes = 0;

  constructor(options: MultiRailTransportOptions) {
    this.options = options;
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
      link = new MultiRailLink(
        {
          peer,
          openRail: (rail, railEvents) => this.options.rails[rail]!.createLink(peer, railEvents),
          rails: this.options.settings,
          policy: this.options.policy(peer),
          clock: this.options.clock,
          minSplit: this.options.minSplit,
          ackTimeout: this.options.ackTimeout,
          log: this.options.log,
          rank: this.options.rank,
        },
        events,
      );
      this.links.set(peer, link);
    }
    return link;
  }

  attach(events: LinkEvents): void {
    this.options.rails.forEach((tcp, rail) => tcp.attach(this.receiveEvents(rail, events)));
  }

  private receiveEvents(rail: number, events: LinkEvents): LinkEvents {
    return {
      frame: (link, frame) => this.onFrame(link, frame, events),
      arrived: (link) => events.arrived(link),
      drain: (link) => events.drain(link),
      closed: (link, error) => {
        // The control rail's connection carries the peer's control frames: its end is the
        // peer's end. A data rail's end is handled by the sender (it sends its segments again).
        if (rail === 0) events.closed(link, error);
        else if (error !== undefined) this.options.log(`tsmpi: rank ${this.options.rank}: rail ${rail} from rank ${link.peer} closed: ${error.message}`);
      },
    };
  }

  private onFrame(link: Link, frame: InboundFrame, events: LinkEvents): void {
    const w = frame.words;
    const h = frame.headerIndex;
    const type = w[h + H_TYPE]! & 0xff;
    if (type === FrameType.RailAck) {
      const ids = this.ackIds;
      ids.length = 0;
      for (const word of ACK_WORDS) {
        const id = w[h + word]!;
        if (id !== 0) ids.push(id);
      }
      this.linkTo(link.peer, events).acked(ids);
      return;
    }
    if (type !== FrameType.RailSegment) {
      events.frame(link, frame);
      return;
    }
    const segmentId = w[h + H_CONTEXT]!;
    const frameStart = w[h + H_SOURCE]!;
    const frameLength = w[h + H_AUX]!;
    const segmentStart = w[h + H_TOTAL]!;
    const segmentLength = w[h + H_LENGTH]!;
    const receiverId = w[h + H_SEQ]!;
    const start = segmentStart + frame.pieceOffset - frameStart;
    const fresh = this.tracker.accept(`${link.peer}:${receiverId}:${frameStart}`, frameLength, start, start + frame.payloadLength);
    let delivered = 0;
    const out = this.scratch;
    const sw = out.words;
    sw[H_TYPE] = FrameType.Data | FRAME_SPLITTABLE;
    sw[H_SEQ] = receiverId;
    out.bytes = frame.bytes;
    out.pieceOffset = 0;
    for (const range of fresh) {
      sw[H_TOTAL] = frameStart + range.start;
      sw[H_LENGTH] = range.end - range.start;
      out.payloadOffset = frame.payloadOffset + (range.start - start);
      out.payloadLength = range.end - range.start;
      delivered += out.payloadLength;
      events.frame(link, out);
    }
    this.duplicateBytes += frame.payloadLength - delivered;
    if (frame.pieceOffset + frame.payloadLength >= segmentLength) this.linkTo(link.peer, events).acknowledge(segmentId);
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
    for (const tcp of this.options.rails) tcp.close();
  }
}
