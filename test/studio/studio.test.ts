/**
 * The studio's end-to-end suites, in one file so that one mocha worker runs them in turn on one `npm start` stack
 * (testkit/stack/studioStack.ts, stopped after this file): the pipeline from sentence to listed endpoint, then the
 * CLI and the HTTP service. As two files, a worker that ran both would find the first one's stack stopped, and two
 * workers started a stack each.
 */
import "./studioPipeline.ts";
import "./studioInterfaces.ts";
