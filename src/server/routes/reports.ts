/** Reports: a period's collections report (the spec's) and its attempts, streamed. */
import { validateReportQuery } from '../../domain/requests.js';
import { defineRoutes, download } from '../dispatch.js';

export const reportsRoutes = defineRoutes('reports', {
  collectionsReport: download(({ backend, query }) => {
    const q = validateReportQuery(query);
    return backend.collectionsReport(q.period_month, q.format);
  }),
  attemptsReport: download(({ backend, query }) => {
    const q = validateReportQuery(query);
    return backend.exportAttempts(q.period_month, q.format);
  }),
});
