/**
 * The one way the admin console writes (issue #9 item 2 "mutations invalidating what they change"):
 * a TanStack mutation that, once the server accepted it, marks the given query keys stale so every
 * list showing them is fetched again.
 */
import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { QueryKey, UseMutationResult } from "@tanstack/react-query";

/**
 * A mutation running `call` and then invalidating each key of `invalidates` (in order, awaited, so
 * the lists are fresh when the caller's onSuccess runs its toast). Failures reach the caller's
 * onError unchanged (an ApiError with the server's Err).
 */
export function useInvalidatingMutation<V, R>(
  call: (vars: V) => Promise<R>,
  invalidates: readonly QueryKey[],
): UseMutationResult<R, Error, V> {
  const client = useQueryClient();
  return useMutation({
    mutationFn: call,
    onSuccess: async () => {
      for (const queryKey of invalidates) await client.invalidateQueries({ queryKey });
    },
  });
}
