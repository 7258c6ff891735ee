package io.argus.trainer.loss;

/**
 * The YOLO loss of some images split into its parts (sums over images, before loss scaling), with the number of
 * truths that were assigned an anchor and the sum of their IoU with the prediction (for the average IoU).
 */
public record LossParts(double box, double objectness, double classification, int assigned, double iouSum) {
    public static final LossParts ZERO = new LossParts(0, 0, 0, 0, 0);

    public double total() { return box + objectness + classification; }

    public double averageIou() { return assigned == 0 ? 0 : iouSum / assigned; }

    public LossParts plus(LossParts o) {
        return new LossParts(box + o.box, objectness + o.objectness, classification + o.classification,
                assigned + o.assigned, iouSum + o.iouSum);
    }

    /** Each part divided by {@code n} (e.g. per image). */
    public LossParts dividedBy(double n) {
        return new LossParts(box / n, objectness / n, classification / n, assigned, iouSum);
    }
}
