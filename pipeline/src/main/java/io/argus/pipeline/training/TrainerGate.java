package io.argus.pipeline.training;

/**
 * Whether this node may fine-tune a model now. A single node always may; in a cluster one node at a time does (the
 * cluster's trainer singleton), so two nodes never promote competing versions of one model.
 */
public interface TrainerGate {
    /** Null when fine-tunes run here; else why not (which node runs them). */
    String elsewhere();

    TrainerGate HERE = () -> null;
}
