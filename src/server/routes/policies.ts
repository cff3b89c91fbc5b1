/** Policies: create, import, update (the spec's), read, list, and what a cancellation would withdraw. */
import { validatePolicyInput, validatePolicyPatch } from '../../domain/policy.js';
import { validatePolicyListQuery } from '../../domain/requests.js';
import { defineRoutes, read, write } from '../dispatch.js';

export const policiesRoutes = defineRoutes('policies', {
  createPolicy: write(({ body }) => ({ args: [validatePolicyInput(body, 'json')] })),
  importPolicies: write(() => ({ args: [] })),
  listPolicies: read(({ backend, query }) => backend.listPolicies(validatePolicyListQuery(query))),
  getPolicy: read(({ backend, params }) => backend.getPolicy(params.id!)),
  updatePolicy: write(({ body, params }) => ({ args: [params.id!, validatePolicyPatch(body, 'json')] })),
  // What a cancellation would withdraw (the CLI's confirmation); changes nothing.
  previewCancellation: read(({ backend, params }) => backend.previewCancellation(params.id!)),
});
