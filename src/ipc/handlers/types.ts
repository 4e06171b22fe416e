// The shape every handler module fills in: one async function per channel, taking the request as its
// schema parsed it and returning the response its schema describes.
import type { z } from "zod";
import type { Logger } from "../../core/log.js";
import type { Channel, CONTRACT, ResponseOf } from "../contract.js";
import type { EventHub } from "../event-hub.js";
import type { UiHost, UiServices } from "../ui-services.js";

export type ParsedRequest<C extends Channel> = z.output<(typeof CONTRACT)[C]["request"]>;

export type Handlers = { [C in Channel]: (request: ParsedRequest<C>) => Promise<ResponseOf<C>> };

export interface HandlerContext {
  services: UiServices;
  host: UiHost;
  events: EventHub;
  logger: Logger;
  now: () => number;
}
