package io.llmperf4j.server;

/** The response a connection is generating right now, as its handler sees it. Called on the connection's event loop. */
interface ActiveResponse {

    /** The connection closed (client disconnect or shutdown): stop generating and free what the response holds. */
    void abort();

    /** The channel can take more bytes again. */
    void onWritable();
}
