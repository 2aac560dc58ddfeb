package io.ankusa.claimcheck.benchmarks;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Shape;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.IntervalMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.ui.Layer;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.chart.util.ShapeUtils;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * Draws the harnesses' two PNG plots with JFreeChart, headless; stateless, so thread-safe.
 *
 * <p>Every plot is a stack of panels sharing one x axis; a panel is a map from series name to its
 * points. Series of the same name are one series: one legend entry, one colour and shape from a
 * fixed palette, given in the order names first appear.
 */
final class Plots {

  private static final Color[] PALETTE = {
    new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0x7f7f7f),
    new Color(0xff7f0e), new Color(0x9467bd), new Color(0x8c564b), new Color(0xe377c2),
    new Color(0x17becf), new Color(0xbcbd22)
  };

  private static final Shape[] SHAPES = {
    new Ellipse2D.Double(-4, -4, 8, 8),
    new Rectangle2D.Double(-4, -4, 8, 8),
    ShapeUtils.createUpTriangle(5),
    ShapeUtils.createDiamond(5)
  };

  /** One panel: a y-axis label and its series (name to {x, y} points), drawn in map order. */
  record Panel(String yLabel, Map<String, List<double[]>> series, boolean shapes) {}

  /** A shaded x interval with a label (a phase of a run). */
  record Band(double from, double to, String label) {}

  private Plots() {}

  /**
   * Writes a {@code width} x {@code height} PNG of {@code panels} stacked over one x axis
   * (logarithmic base 2 when {@code log2X}), with {@code bands} shaded on every panel.
   */
  static void write(
      Path png,
      String title,
      String subtitle,
      String xLabel,
      boolean log2X,
      List<Panel> panels,
      List<Band> bands,
      int width,
      int height)
      throws IOException {
    System.setProperty("java.awt.headless", "true");
    ValueAxis x;
    if (log2X) {
      LogAxis log = new LogAxis(xLabel);
      log.setBase(2);
      log.setTickUnit(new NumberTickUnit(1));
      log.setMinorTickMarksVisible(false);
      log.setNumberFormatOverride(new DecimalFormat("#,##0"));
      x = log;
    } else {
      NumberAxis linear = new NumberAxis(xLabel);
      linear.setAutoRangeIncludesZero(true);
      x = linear;
    }
    CombinedDomainXYPlot plot = new CombinedDomainXYPlot(x);
    addPanels(plot, panels, bands);
    save(png, title, subtitle, plot, width, height);
  }

  private static void addPanels(CombinedDomainXYPlot plot, List<Panel> panels, List<Band> bands) {
    plot.setGap(12);
    Map<String, Integer> styles = new HashMap<>();
    boolean first = true;
    for (Panel p : panels) {
      XYSeriesCollection data = new XYSeriesCollection();
      for (Map.Entry<String, List<double[]>> e : p.series().entrySet()) {
        XYSeries s = new XYSeries(e.getKey(), false, true);
        for (double[] pt : e.getValue()) {
          s.add(pt[0], pt[1]);
        }
        data.addSeries(s);
      }
      XYLineAndShapeRenderer r = new XYLineAndShapeRenderer(true, p.shapes());
      for (int i = 0; i < data.getSeriesCount(); i++) {
        String name = (String) data.getSeriesKey(i);
        // One legend entry, colour and shape per series name across every panel.
        Integer style = styles.get(name);
        r.setSeriesVisibleInLegend(i, style == null);
        if (style == null) {
          style = styles.size();
          styles.put(name, style);
        }
        r.setSeriesPaint(i, PALETTE[style % PALETTE.length]);
        r.setSeriesStroke(i, new BasicStroke(2.2f));
        r.setSeriesShape(i, SHAPES[style % SHAPES.length]);
      }
      NumberAxis y = new NumberAxis(p.yLabel());
      y.setAutoRangeIncludesZero(true);
      XYPlot sub = new XYPlot(data, null, y, r);
      sub.setBackgroundPaint(Color.WHITE);
      sub.setDomainGridlinePaint(new Color(0xdddddd));
      sub.setRangeGridlinePaint(new Color(0xdddddd));
      for (Band b : bands) {
        IntervalMarker m = new IntervalMarker(b.from(), b.to());
        m.setPaint(new Color(255, 200, 120, 70));
        if (first) {
          m.setLabel(b.label());
          m.setLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
          m.setLabelAnchor(RectangleAnchor.TOP_LEFT);
          m.setLabelTextAnchor(TextAnchor.TOP_LEFT);
        }
        sub.addDomainMarker(m, Layer.BACKGROUND);
      }
      plot.add(sub, 1);
      first = false;
    }
  }

  private static void save(
      Path png, String title, String subtitle, CombinedDomainXYPlot plot, int width, int height)
      throws IOException {
    JFreeChart chart = new JFreeChart(title, new Font(Font.SANS_SERIF, Font.BOLD, 16), plot, true);
    if (subtitle != null) {
      chart.addSubtitle(new TextTitle(subtitle, new Font(Font.SANS_SERIF, Font.PLAIN, 12)));
    }
    chart.setBackgroundPaint(Color.WHITE);
    Path dir = png.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    ChartUtils.saveChartAsPNG(png.toFile(), chart, width, height);
  }
}
