/** Settlements: create, read, export (the spec's), list, preview, record a payment, dispute. */
import {
  validateDisputeRequest,
  validateExportQuery,
  validateMarkPaidRequest,
  validateSettlementListQuery,
  validateSettlementPreviewQuery,
  validateSettlementRequest,
} from '../../domain/requests.js';
import { defineRoutes, download, read, write } from '../dispatch.js';

export const settlementsRoutes = defineRoutes('settlements', {
  createSettlement: write(({ body }) => ({ args: [validateSettlementRequest(body).period_month] })),
  listSettlements: read(({ backend, query }) => backend.listSettlements(validateSettlementListQuery(query))),
  // The statement POST /settlements would make now (the CLI's confirmation); stores nothing.
  previewSettlement: read(({ backend, query }) => backend.previewSettlement(validateSettlementPreviewQuery(query).period_month)),
  getSettlement: read(({ backend, params }) => backend.getSettlement(params.id!)),
  exportSettlement: download(({ backend, params, query }) => backend.exportSettlement(params.id!, { lines: validateExportQuery(query).lines })),
  markSettlementPaid: write(({ body, params }) => ({ args: [params.id!, validateMarkPaidRequest(body)] })),
  disputeSettlement: write(({ body, params }) => ({ args: [params.id!, validateDisputeRequest(body).reason] })),
});
