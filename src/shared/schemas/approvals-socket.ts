// The `socket` section of the approvals file: where the approval socket is and its token. Every client
// (the agent hook on each tool call, `gatehouse ask`, scripts) reads only this much of the file, with
// zod/mini, so asking costs neither the whole policy's validation nor classic zod's start-up (issue 12).
// The policy itself is read and checked in full by the server that decides.
import { z } from "zod/mini";

export const ApprovalsSocketSchema = z.looseObject({
  path: z.string().check(z.minLength(1)),
  token: z.string().check(z.minLength(16)),
});
export type ApprovalsSocket = z.infer<typeof ApprovalsSocketSchema>;

/** The approvals file as a client reads it: its version and socket section (the rest is the server's). */
export const ApprovalsSocketViewSchema = z.looseObject({
  version: z.literal(1),
  socket: ApprovalsSocketSchema,
});
