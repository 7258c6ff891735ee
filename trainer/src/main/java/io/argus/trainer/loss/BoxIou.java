package io.argus.trainer.loss;

/**
 * IoU and its relatives between a predicted and a true box (centre x, y, size w, h), with the partial derivatives of
 * each with respect to the prediction's x, y, w and h:
 * <ul>
 *   <li>IoU = I / U;</li>
 *   <li>GIoU = IoU - (C - U) / C, C the area of the smallest enclosing box;</li>
 *   <li>DIoU = IoU - S / D, S the squared distance of the centres, D the squared diagonal of the enclosing box;</li>
 *   <li>CIoU = DIoU - alpha v, v = 4/pi^2 (atan(wt/ht) - atan(w/h))^2, alpha = v / (1 - IoU + v), alpha held
 *   constant in the derivative (as the CIoU paper and Darknet do).</li>
 * </ul>
 * The derivatives are exact (one-sided where a min/max switches), except that by default the derivative of v drops
 * its factor 1 / (w^2 + h^2), as the CIoU paper recommends and Darknet's dx_box_iou does, for stable training of small
 * boxes; {@code exactAspect} keeps it. Darknet's dx_box_iou differs in two further ways that are not reproduced: it
 * does not halve the w and h derivatives, and it flips the sign of the enclosing-box term in the DIoU/CIoU x and y
 * derivatives.
 */
public final class BoxIou {
    private BoxIou() {}

    /** Value of the chosen kind, the plain IoU, and d value / d (x, y, w, h) of the prediction. */
    public record Gradient(double value, double iou, double dx, double dy, double dw, double dh) {}

    /** Darknet's box_iou: 0 when the boxes do not overlap. */
    public static double iou(double ax, double ay, double aw, double ah, double bx, double by, double bw, double bh) {
        double iw = Math.min(ax + aw / 2, bx + bw / 2) - Math.max(ax - aw / 2, bx - bw / 2);
        double ih = Math.min(ay + ah / 2, by + bh / 2) - Math.max(ay - ah / 2, by - bh / 2);
        if (iw <= 0 || ih <= 0) return 0;
        double inter = iw * ih;
        double union = aw * ah + bw * bh - inter;
        return union <= 0 ? 0 : inter / union;
    }

    public static Gradient of(IouKind kind, double x, double y, double w, double h, Truth truth, boolean exactAspect) {
        return of(kind, x, y, w, h, truth.x(), truth.y(), truth.w(), truth.h(), exactAspect);
    }

    public static Gradient of(IouKind kind, double x, double y, double w, double h, double tx, double ty, double tw,
                              double th, boolean exactAspect) {
        if (kind == IouKind.MSE) throw new IllegalArgumentException("MSE is not an IoU kind");
        double l = x - w / 2, r = x + w / 2, t = y - h / 2, b = y + h / 2;
        double tl = tx - tw / 2, tr = tx + tw / 2, tt = ty - th / 2, tb = ty + th / 2;

        // intersection I = iw * ih and its derivatives by the prediction's edges
        double iw = Math.min(r, tr) - Math.max(l, tl);
        double ih = Math.min(b, tb) - Math.max(t, tt);
        boolean overlap = iw > 0 && ih > 0;
        double inter = overlap ? iw * ih : 0;
        double dIdl = overlap && l > tl ? -ih : 0;
        double dIdr = overlap && r < tr ? ih : 0;
        double dIdt = overlap && t > tt ? -iw : 0;
        double dIdb = overlap && b < tb ? iw : 0;
        double dIdx = dIdl + dIdr, dIdw = (dIdr - dIdl) / 2;
        double dIdy = dIdt + dIdb, dIdh = (dIdb - dIdt) / 2;

        // union U = w h + wt ht - I
        double union = w * h + tw * th - inter;
        double dUdx = -dIdx, dUdy = -dIdy, dUdw = h - dIdw, dUdh = w - dIdh;

        double iou = union > 0 ? inter / union : 0;
        double gx = 0, gy = 0, gw = 0, gh = 0;
        if (union > 0 && overlap) {
            double u2 = union * union;
            gx = (dIdx * union - inter * dUdx) / u2;
            gy = (dIdy * union - inter * dUdy) / u2;
            gw = (dIdw * union - inter * dUdw) / u2;
            gh = (dIdh * union - inter * dUdh) / u2;
        }
        if (kind == IouKind.IOU) return new Gradient(iou, iou, gx, gy, gw, gh);

        // enclosing box: width cw, height ch, and their derivatives by the prediction's x, y, w, h
        double cl = Math.min(l, tl), cr = Math.max(r, tr), ct = Math.min(t, tt), cb = Math.max(b, tb);
        double cw = cr - cl, ch = cb - ct;
        double dCwdl = l < tl ? -1 : 0, dCwdr = r > tr ? 1 : 0;
        double dChdt = t < tt ? -1 : 0, dChdb = b > tb ? 1 : 0;
        double dCwdx = dCwdl + dCwdr, dCwdw = (dCwdr - dCwdl) / 2;
        double dChdy = dChdt + dChdb, dChdh = (dChdb - dChdt) / 2;

        if (kind == IouKind.GIOU) {
            double area = cw * ch;
            if (area <= 0) return new Gradient(iou, iou, gx, gy, gw, gh);
            double value = iou - (area - union) / area;
            // d/dq of U/C = (dU C - U dC) / C^2, with dC = ch dCw + cw dCh
            double a2 = area * area;
            double dCdx = ch * dCwdx, dCdw = ch * dCwdw, dCdy = cw * dChdy, dCdh = cw * dChdh;
            return new Gradient(value, iou,
                    gx + (dUdx * area - union * dCdx) / a2,
                    gy + (dUdy * area - union * dCdy) / a2,
                    gw + (dUdw * area - union * dCdw) / a2,
                    gh + (dUdh * area - union * dCdh) / a2);
        }

        // DIoU: minus S / D
        double diag = cw * cw + ch * ch;
        if (diag <= 0) return new Gradient(iou, iou, gx, gy, gw, gh);
        double s = (x - tx) * (x - tx) + (y - ty) * (y - ty);
        double d2 = diag * diag;
        double dDdx = 2 * cw * dCwdx, dDdw = 2 * cw * dCwdw, dDdy = 2 * ch * dChdy, dDdh = 2 * ch * dChdh;
        double value = iou - s / diag;
        gx -= (2 * (x - tx) * diag - s * dDdx) / d2;
        gy -= (2 * (y - ty) * diag - s * dDdy) / d2;
        gw -= (-s * dDdw) / d2;
        gh -= (-s * dDdh) / d2;
        if (kind == IouKind.DIOU) return new Gradient(value, iou, gx, gy, gw, gh);

        // CIoU: minus alpha v
        double atanDiff = Math.atan(tw / th) - Math.atan(w / h);
        double v = 4 / (Math.PI * Math.PI) * atanDiff * atanDiff;
        double alpha = v / (1 - iou + v + 0.000001);
        value -= alpha * v;
        // dv/dw = -8/pi^2 atanDiff h/(w^2+h^2), dv/dh = 8/pi^2 atanDiff w/(w^2+h^2)
        double norm = exactAspect ? w * w + h * h : 1;
        gw += alpha * 8 / (Math.PI * Math.PI) * atanDiff * h / norm;
        gh -= alpha * 8 / (Math.PI * Math.PI) * atanDiff * w / norm;
        return new Gradient(value, iou, gx, gy, gw, gh);
    }
}
