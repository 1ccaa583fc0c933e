/*
 * crossings: the Java worker (engine h2/jdbc, runtime "jvm"): H2 embedded, through JDBC.
 *
 * One fresh process of one cell, like `python -m harness.worker`, with Java as the host language
 * (seed 001's third engine: "each benchmark has a Java equivalent such that we can run it with H2").
 * Built on demand by harness/run/jvm/launcher.py, which also turns the runner's spec JSON into a
 * task file (java.util.Properties: no JSON parser needed here):
 *
 *   Bench --probe                 one JSON line: Java and H2 versions, runtime name.
 *   Bench load URL SCRIPT         run the statements of SCRIPT (separated by a line ";") on URL:
 *                                 the TPC-H loader (CREATE TABLE ... AS SELECT ... FROM CSVREAD).
 *   Bench run TASK.properties     untimed set-up, then up to `iterations` timed operations, each
 *                                 checked after the clock stops; writes the worker's result JSON
 *                                 (schema 1) to `result` atomically (tmp + fsync + rename).
 *
 * Benchmarks (the same operations as harness/workloads/micro.py and tpch.py, written in Java):
 *   tpch.qNN          executeQuery + every row fetched into a list (getObject per value); checked
 *                     against the answer set with the TPC-H precision rules (tpch_check.py's,
 *                     re-implemented in `Answer` below); set-up/teardown statements (Q15's view) untimed.
 *   micro.select      three lineitem columns as doubles consumed by a Java loop (filter and sum).
 *   micro.innerjoin   part JOIN partsupp by H2; the rows consumed in Java.
 *   micro.pythonjoin  the same join in Java: partsupp fetched, then one prepared point query on part
 *                     per partsupp row ("javajoin"; the benchmark keeps the seed's name).
 *   micro.pyfunction  H2 calls a Java scalar function (CREATE ALIAS py_net FOR "Bench.pyNet") per row.
 *   micro.pyaggregate a Java aggregate (CREATE AGGREGATE py_revenue FOR "Bench$Revenue", an
 *                     org.h2.api.AggregateFunction): one add() per row, then getResult().
 *   micro.filltable   DROP/CREATE, one transaction of prepared inserts (addBatch/executeBatch, JDBC's
 *                     executemany) of rows made untimed beforehand, COMMIT, read back.
 *   selftest.wrong    "SELECT 41" checked against 42: the invalid path.
 * Anything else: status "not_applicable".
 * Crossings and values converted are counted as the Python workloads count them: for the callbacks
 * by an instrumented replay (a counting function/aggregate registered in place of the real one,
 * the operation run once more untimed).
 *
 * Timing: System.nanoTime (monotonic wall) and the benchmark thread's CPU time
 * (ThreadMXBean.getCurrentThreadCpuTime, nanosecond resolution) read around the operation only,
 * in the Python worker's order (wall, cpu, op, cpu, wall). The process CPU time the JVM offers
 * (OperatingSystemMXBean.getProcessCpuTime) moves in 10 ms steps on Linux, too coarse for one
 * iteration; so cpu_ns on this runtime leaves out the JIT compiler and GC threads. H2 runs each
 * query in the calling thread.
 */
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

public final class Bench {
    static final String H2_OPTIONS = ""; // H2's default configuration, as seed 001 used it, except:
    /** H2 by default hands a repeated deterministic query the result of its last execution when no
     * table changed (result reuse): from the second iteration on, a TPC-H query would take 0.2 ms
     * instead of executing. Every iteration must execute its query, so reuse is off. */
    static final String SETTINGS = "SET OPTIMIZE_REUSE_RESULTS 0";

    // ------------------------------------------------------------------ callbacks registered in H2

    /** The Java scalar function of micro.pyfunction (Python's py_net). */
    public static double pyNet(double discount) {
        return 1.0 - discount;
    }

    static long calls = 0;

    /** The counting replacement of pyNet, used once, untimed, to count the calls. */
    public static double pyNetCounting(double discount) {
        calls++;
        return 1.0 - discount;
    }

    /** The Java aggregate of micro.pyaggregate (Python's Revenue): sum of price * (1 - discount). */
    public static class Revenue implements org.h2.api.AggregateFunction {
        double total = 0.0;

        @Override
        public int getType(int[] inputTypes) {
            return Types.DOUBLE;
        }

        @Override
        public void add(Object value) {
            Object[] args = (Object[]) value;
            total += ((Number) args[0]).doubleValue() * (1 - ((Number) args[1]).doubleValue());
        }

        @Override
        public Object getResult() {
            return total;
        }
    }

    static long steps = 0;

    /** The counting replacement of Revenue. */
    public static class RevenueCounting extends Revenue {
        @Override
        public void add(Object value) {
            steps++;
            super.add(value);
        }
    }

    // ------------------------------------------------------------------ results

    static final class Result {
        final long[] wall;
        final long[] cpu;
        final boolean[] ok;
        final long[] crossings;
        final long[] values;
        int done = 0;
        String status = "error";
        String reason = "";
        String budgetStop = null;

        Result(int n) {
            wall = new long[n];
            cpu = new long[n];
            ok = new boolean[n];
            crossings = new long[n];
            values = new long[n];
        }
    }

    static String runtimeName() {
        return "jvm-" + System.getProperty("java.version");
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20) {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    static void array(StringBuilder b, String key, long[] v, int n) {
        b.append(", ").append(json(key)).append(": [");
        for (int i = 0; i < n; i++) b.append(i > 0 ? ", " : "").append(v[i]);
        b.append(']');
    }

    /** The worker's result JSON (harness/worker.py's format), via a temporary file, fsync and rename. */
    static void writeResult(String path, Result r, String h2Version) throws IOException {
        int n = r.done;
        StringBuilder b = new StringBuilder();
        b.append("{\"schema\": 1, \"pid\": ").append(ProcessHandle.current().pid());
        b.append(", \"runtime\": ").append(json(runtimeName()));
        b.append(", \"status\": ").append(json(r.status));
        b.append(", \"reason\": ").append(json(r.reason));
        array(b, "wall_ns", r.wall, n);
        array(b, "cpu_ns", r.cpu, n);
        b.append(", \"check_ok\": [");
        for (int i = 0; i < n; i++) b.append(i > 0 ? ", " : "").append(r.ok[i] ? "true" : "false");
        b.append(']');
        array(b, "crossings", r.crossings, n);
        array(b, "values_converted", r.values, n);
        if (r.budgetStop != null) b.append(", \"budget_stop\": ").append(json(r.budgetStop));
        b.append(", \"java\": ").append(json(System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version")));
        b.append(", \"h2\": ").append(json(h2Version == null ? "" : h2Version));
        b.append("}\n");
        Path target = Paths.get(path);
        Path tmp = Paths.get(path + ".tmp." + ProcessHandle.current().pid());
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8)));
            ch.force(true);
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    // ------------------------------------------------------------------ checks

    /** What one operation returned: rows (TPC-H), or a count and a sum (micro), plus its counts. */
    static final class Out {
        List<Object[]> rows;
        long count;
        double sum;
        long crossings;
        long values;
    }

    static boolean closeEnough(double a, double b) {
        return Math.abs(a - b) <= 1e-9 * Math.max(1.0, Math.max(Math.abs(a), Math.abs(b)));
    }

    /** tpch_check.py's precision rules (TPC-H clause 2.1.3.5, the kit's colprecision.txt). */
    static final class Answer {
        static final BigDecimal CENT = new BigDecimal("0.01");
        static final BigDecimal TOL_SUM = new BigDecimal("100");
        static final BigDecimal TOL_REL = new BigDecimal("0.01");
        static final BigDecimal FLOAT_NOISE = new BigDecimal("1e-9");
        static final BigDecimal MAX_NUDGE = new BigDecimal("0.004");
        final int query;
        final String[] classes;
        final List<String[]> rows;

        Answer(int query, String[] classes, List<String[]> rows) {
            this.query = query;
            this.classes = classes;
            this.rows = rows;
        }

        static String text(Object v) {
            if (v instanceof java.sql.Date) return v.toString();
            if (v instanceof java.time.LocalDate) return v.toString();
            return String.valueOf(v);
        }

        static String rstrip(String s) {
            int end = s.length();
            while (end > 0 && Character.isWhitespace(s.charAt(end - 1))) end--;
            return s.substring(0, end);
        }

        static BigDecimal decimal(Object v) {
            if (v instanceof BigDecimal) return (BigDecimal) v;
            if (v instanceof Double || v instanceof Float) return new BigDecimal(Double.toString(((Number) v).doubleValue()));
            if (v instanceof Boolean) throw new NumberFormatException("boolean");
            if (v instanceof Number) return new BigDecimal(((Number) v).longValue());
            return new BigDecimal(text(v).trim());
        }

        static List<BigDecimal> roundings(Object v) {
            BigDecimal exact = decimal(v);
            List<BigDecimal> out = new ArrayList<>();
            out.add(exact.setScale(2, RoundingMode.HALF_UP));
            if ((v instanceof Double || v instanceof Float) && exact.signum() != 0) {
                BigDecimal eps = exact.abs().multiply(FLOAT_NOISE).min(MAX_NUDGE);
                for (BigDecimal nudged : new BigDecimal[] {exact.subtract(eps), exact.add(eps)}) {
                    BigDecimal r = nudged.setScale(2, RoundingMode.HALF_UP);
                    if (!out.contains(r)) out.add(r);
                }
            }
            return out;
        }

        static String compareValue(String cls, Object got, String expected) {
            String e = expected.trim();
            if (e.equals("NULL") || e.isEmpty()) return got == null ? null : "got " + text(got) + ", expected NULL";
            if (got == null) return "got NULL, expected " + expected;
            try {
                if (cls.equals("str")) {
                    String t = rstrip(text(got));
                    return t.equals(rstrip(expected)) ? null : "got '" + t + "', expected '" + rstrip(expected) + "'";
                }
                if (cls.equals("int") || cls.equals("cnt")) {
                    BigDecimal g = decimal(got);
                    if (g.stripTrailingZeros().scale() > 0 || g.compareTo(new BigDecimal(e)) != 0) {
                        return "got " + text(got) + ", expected " + e + " (exact)";
                    }
                    return null;
                }
                BigDecimal exp = new BigDecimal(e).setScale(2, RoundingMode.HALF_UP);
                BigDecimal tol;
                String what;
                if (cls.equals("num")) {
                    tol = BigDecimal.ZERO;
                    what = "identical to 1/100";
                } else if (cls.equals("sum")) {
                    tol = TOL_SUM;
                    what = "within 100";
                } else if (cls.equals("avg") || cls.equals("rat")) {
                    tol = exp.abs().multiply(TOL_REL);
                    what = "within 1%";
                } else {
                    return "unknown column class " + cls;
                }
                List<BigDecimal> candidates = roundings(got);
                for (BigDecimal g : candidates) {
                    if (g.subtract(exp).abs().compareTo(tol) <= 0) return null;
                }
                return "got " + text(got) + " (reported " + candidates.get(0).toPlainString() + "), expected "
                        + exp.toPlainString() + " (" + what + ")";
            } catch (NumberFormatException | ClassCastException ex) {
                return "got " + text(got) + ", expected " + expected + " (" + ex + ")";
            }
        }

        String compare(List<Object[]> got) {
            if (got.size() != rows.size()) return "q" + query + ": " + got.size() + " rows, expected " + rows.size();
            for (int i = 0; i < got.size(); i++) {
                Object[] g = got.get(i);
                String[] x = rows.get(i);
                if (g.length != classes.length) {
                    return "q" + query + " row " + (i + 1) + ": " + g.length + " columns, expected " + classes.length;
                }
                for (int j = 0; j < classes.length; j++) {
                    String reason = compareValue(classes[j], g[j], x[j]);
                    if (reason != null) {
                        return "q" + query + " row " + (i + 1) + " column " + (j + 1) + " (" + classes[j] + "): " + reason;
                    }
                }
            }
            return null;
        }
    }

    // ------------------------------------------------------------------ operations (timed)

    interface Operation {
        Out run() throws SQLException;
    }

    static List<Object[]> fetchAll(Connection db, String sql) throws SQLException {
        List<Object[]> rows = new ArrayList<>();
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            int width = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                Object[] row = new Object[width];
                for (int j = 0; j < width; j++) row[j] = rs.getObject(j + 1);
                rows.add(row);
            }
        }
        return rows;
    }

    static Out tpch(Connection db, String sql) throws SQLException {
        Out o = new Out();
        o.rows = fetchAll(db, sql);
        o.crossings = 1 + o.rows.size();
        for (Object[] r : o.rows) o.values += r.length;
        return o;
    }

    static final String SELECT = "SELECT CAST(l_quantity AS DOUBLE PRECISION), CAST(l_extendedprice AS DOUBLE PRECISION), "
            + "CAST(l_discount AS DOUBLE PRECISION) FROM lineitem";
    static final String SELECT_EXPECTED = "SELECT COUNT(*), SUM(CASE WHEN CAST(l_quantity AS DOUBLE PRECISION) < 24 THEN "
            + "CAST(l_extendedprice AS DOUBLE PRECISION) * (1 - CAST(l_discount AS DOUBLE PRECISION)) ELSE 0 END) FROM lineitem";
    static final String JOIN = "SELECT CAST(p_retailprice AS DOUBLE PRECISION), CAST(ps_supplycost AS DOUBLE PRECISION) "
            + "FROM part JOIN partsupp ON p_partkey = ps_partkey";
    static final String MARGIN_EXPECTED = "SELECT COUNT(*), SUM(CAST(p_retailprice AS DOUBLE PRECISION) - "
            + "CAST(ps_supplycost AS DOUBLE PRECISION)) FROM part JOIN partsupp ON p_partkey = ps_partkey";
    static final String OUTER = "SELECT ps_partkey, CAST(ps_supplycost AS DOUBLE PRECISION) FROM partsupp";
    static final String INNER = "SELECT CAST(p_retailprice AS DOUBLE PRECISION) FROM part WHERE p_partkey = ?";
    static final String REVENUE_EXPECTED = "SELECT COUNT(*), SUM(CAST(l_extendedprice AS DOUBLE PRECISION) * "
            + "(1 - CAST(l_discount AS DOUBLE PRECISION))) FROM lineitem";
    static final String FUNCTION = "SELECT CAST(l_extendedprice AS DOUBLE PRECISION) * py_net(CAST(l_discount AS DOUBLE PRECISION)) "
            + "FROM lineitem";
    static final String AGGREGATE = "SELECT py_revenue(CAST(l_extendedprice AS DOUBLE PRECISION), "
            + "CAST(l_discount AS DOUBLE PRECISION)) FROM lineitem";

    static Out microSelect(Connection db) throws SQLException {
        Out o = new Out();
        long count = 0;
        double revenue = 0.0;
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(SELECT)) {
            while (rs.next()) {
                double quantity = rs.getDouble(1);
                double price = rs.getDouble(2);
                double discount = rs.getDouble(3);
                count++;
                if (quantity < 24) revenue += price * (1 - discount);
            }
        }
        o.count = count;
        o.sum = revenue;
        o.crossings = count + 1;
        o.values = 3 * count;
        return o;
    }

    static Out microInnerjoin(Connection db) throws SQLException {
        Out o = new Out();
        long count = 0;
        double margin = 0.0;
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(JOIN)) {
            while (rs.next()) {
                double retail = rs.getDouble(1);
                double cost = rs.getDouble(2);
                count++;
                margin += retail - cost;
            }
        }
        o.count = count;
        o.sum = margin;
        o.crossings = count + 1;
        o.values = 2 * count;
        return o;
    }

    /** micro.pythonjoin in Java: the outer relation fetched in full, then one point query per row.
     * Counts as PythonJoin.counts: the outer query and each outer row, then per point query one
     * crossing with its parameter and one per row; values: 2 per outer row, 1 parameter and 1 per
     * value read per point query. */
    static Out microJavajoin(Connection db) throws SQLException {
        Out o = new Out();
        List<Long> keys = new ArrayList<>();
        List<Double> costs = new ArrayList<>();
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(OUTER)) {
            while (rs.next()) {
                keys.add(rs.getLong(1));
                costs.add(rs.getDouble(2));
            }
        }
        long count = 0;
        long innerRows = 0;
        double margin = 0.0;
        try (PreparedStatement ps = db.prepareStatement(INNER)) {
            for (int i = 0; i < keys.size(); i++) {
                ps.setLong(1, keys.get(i));
                double cost = costs.get(i);
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        double retail = rs.getDouble(1);
                        count++;
                        innerRows++;
                        margin += retail - cost;
                    }
                }
            }
        }
        o.count = count;
        o.sum = margin;
        long outer = keys.size();
        o.crossings = 1 + outer + outer + innerRows;
        o.values = 2 * outer + outer + innerRows;
        return o;
    }

    static Out microFunction(Connection db) throws SQLException {
        Out o = new Out();
        long count = 0;
        double total = 0.0;
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(FUNCTION)) {
            while (rs.next()) {
                total += rs.getDouble(1);
                count++;
            }
        }
        o.count = count;
        o.sum = total;
        return o;
    }

    static Out microAggregate(Connection db) throws SQLException {
        Out o = new Out();
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(AGGREGATE)) {
            while (rs.next()) {
                o.sum = rs.getDouble(1);
                o.count++;
            }
        }
        return o;
    }

    static String[] fillStrs = new String[0];

    static Out microFilltable(Connection db) throws SQLException {
        Out o = new Out();
        try (Statement st = db.createStatement()) {
            st.execute("DROP TABLE IF EXISTS filltable");
            st.execute("CREATE TABLE filltable (a INTEGER, b VARCHAR(32))");
        }
        db.setAutoCommit(false);
        try (PreparedStatement ps = db.prepareStatement("INSERT INTO filltable (a, b) VALUES (?, ?)")) {
            for (int i = 0; i < fillStrs.length; i++) {
                ps.setInt(1, i);
                ps.setString(2, fillStrs[i]);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        db.commit();
        db.setAutoCommit(true);
        long count = 0;
        long total = 0;
        long textChars = 0;
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery("SELECT a, b FROM filltable")) {
            while (rs.next()) {
                total += rs.getLong(1);
                String b = rs.getString(2); // converted, as the Python loop's _b is
                if (b != null) textChars += b.length();
                count++;
            }
        }
        o.count = count;
        o.sum = (double) total;
        long n = fillStrs.length;
        o.crossings = 1 + n + 1 + count;
        o.values = 2 * n + 2 * count;
        return o;
    }

    // ------------------------------------------------------------------ set-up helpers (untimed)

    static void exec(Connection db, String sql) throws SQLException {
        try (Statement st = db.createStatement()) {
            st.execute(sql);
        }
    }

    static double[] countSum(Connection db, String sql) throws SQLException {
        try (Statement st = db.createStatement(); ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return new double[] {rs.getLong(1), rs.getDouble(2)};
        }
    }

    static String h2Version(Connection db) throws SQLException {
        DatabaseMetaData md = db.getMetaData();
        return md.getDatabaseProductVersion();
    }

    static Answer loadAnswer(Properties task) {
        int query = Integer.parseInt(task.getProperty("query", "0"));
        String[] classes = task.getProperty("expected.classes", "").trim().split(" ");
        int n = Integer.parseInt(task.getProperty("expected.rows", "0"));
        List<String[]> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) rows.add(task.getProperty("expected.row." + i, "").split("\u001f", -1));
        return new Answer(query, classes, rows);
    }

    static List<String> list(Properties task, String prefix) {
        List<String> out = new ArrayList<>();
        for (int i = 0; task.getProperty(prefix + i) != null; i++) out.add(task.getProperty(prefix + i));
        return out;
    }

    // ------------------------------------------------------------------ main

    static int probe() {
        String h2 = "";
        try (Connection db = DriverManager.getConnection("jdbc:h2:mem:")) {
            h2 = h2Version(db);
        } catch (SQLException ex) {
            System.out.println("{\"available\": false, \"reason\": " + json("H2 does not start: " + ex.getMessage()) + "}");
            return 0;
        }
        System.out.println("{\"available\": true, \"runtime\": " + json(runtimeName())
                + ", \"java\": " + json(System.getProperty("java.version"))
                + ", \"java_vm\": " + json(System.getProperty("java.vm.name") + " " + System.getProperty("java.vm.version"))
                + ", \"java_vendor\": " + json(System.getProperty("java.vendor"))
                + ", \"h2\": " + json(h2) + ", \"h2_settings\": " + json(SETTINGS) + "}");
        return 0;
    }

    static int load(String url, String script) throws IOException, SQLException {
        String text = new String(Files.readAllBytes(Paths.get(script)), StandardCharsets.UTF_8);
        long t0 = System.nanoTime();
        StringBuilder values = new StringBuilder();
        try (Connection db = DriverManager.getConnection(url)) {
            for (String sql : text.split("\n;\n")) {
                if (sql.trim().isEmpty()) continue;
                if (!sql.trim().toUpperCase().startsWith("SELECT") && !sql.trim().toUpperCase().startsWith("EXPLAIN")) {
                    exec(db, sql);
                    continue;
                }
                List<Object[]> rows = fetchAll(db, sql);
                Object v = rows.isEmpty() ? null : rows.get(0)[0];
                values.append(values.length() > 0 ? ", " : "").append(v == null ? "null" : json(String.valueOf(v)));
            }
            System.out.println("{\"h2\": " + json(h2Version(db)) + ", \"seconds\": " + (System.nanoTime() - t0) / 1e9
                    + ", \"values\": [" + values + "]}");
        }
        return 0;
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--probe")) System.exit(probe());
        if (args.length == 3 && args[0].equals("load")) System.exit(load(args[1], args[2]));
        if (args.length != 2 || !args[0].equals("run")) {
            System.err.println("usage: Bench --probe | load URL SCRIPT | run TASK.properties");
            System.exit(2);
        }
        Properties task = new Properties();
        try (Reader r = new InputStreamReader(Files.newInputStream(Paths.get(args[1])), StandardCharsets.UTF_8)) {
            task.load(r);
        }
        String resultPath = task.getProperty("result");
        int iterations = Math.max(1, Integer.parseInt(task.getProperty("iterations", "1")));
        Result r = new Result(iterations);
        String h2 = null;
        try {
            h2 = runTask(task, r, iterations);
        } catch (Exception ex) {
            r.status = "error";
            r.reason = ex.getClass().getSimpleName() + ": " + ex.getMessage();
            ex.printStackTrace();
            writeResult(resultPath, r, h2);
            System.exit(1);
        }
        writeResult(resultPath, r, h2);
        System.exit(0);
    }

    static String runTask(Properties task, Result r, int iterations) throws Exception {
        String benchmark = task.getProperty("benchmark");
        if (task.getProperty("not_applicable") != null) {
            fail(r, "not_applicable", task.getProperty("not_applicable"));
            return null;
        }
        String workdir = task.getProperty("workdir");
        String source = task.getProperty("database", "");
        String dbPath;
        if (!source.isEmpty()) {
            // a private copy of the prepared TPC-H file: set-up may create functions and views in it
            Path copy = Paths.get(workdir, "tpch.mv.db");
            Files.copy(Paths.get(source + ".mv.db"), copy, StandardCopyOption.REPLACE_EXISTING);
            dbPath = Paths.get(workdir, "tpch").toString();
        } else {
            dbPath = Paths.get(workdir, "bench").toString();
        }
        try (Connection db = DriverManager.getConnection("jdbc:h2:file:" + dbPath + H2_OPTIONS)) {
            String h2 = h2Version(db);
            exec(db, SETTINGS);
            runOn(db, task, r, iterations, benchmark);
            return h2;
        }
    }

    static void runOn(Connection db, Properties task, Result r, int iterations, String benchmark) throws Exception {
        Operation op;
        long expectedCount = 0;
        double expectedSum = 0.0;
        boolean sumOnly = false;
        Answer answer = null;
        List<String> teardown = new ArrayList<>();
        // counts taken by an instrumented replay (callbacks), else from the operation itself
        long[] replay = null;
        if (benchmark.startsWith("tpch.q")) {
            if (!source(task)) {
                fail(r, "error", benchmark + " needs the prepared TPC-H database");
                return;
            }
            answer = loadAnswer(task);
            for (String sql : list(task, "setup.")) exec(db, sql);
            teardown = list(task, "teardown.");
            final String sql = task.getProperty("sql");
            op = () -> tpch(db, sql);
        } else if (benchmark.equals("micro.select")) {
            double[] e = countSum(db, SELECT_EXPECTED);
            expectedCount = (long) e[0];
            expectedSum = e[1];
            op = () -> microSelect(db);
        } else if (benchmark.equals("micro.innerjoin") || benchmark.equals("micro.pythonjoin")) {
            double[] e = countSum(db, MARGIN_EXPECTED);
            expectedCount = (long) e[0];
            expectedSum = e[1];
            op = benchmark.equals("micro.innerjoin") ? () -> microInnerjoin(db) : () -> microJavajoin(db);
        } else if (benchmark.equals("micro.pyfunction")) {
            exec(db, "CREATE ALIAS py_net FOR \"Bench.pyNet\"");
            double[] e = countSum(db, REVENUE_EXPECTED);
            expectedCount = (long) e[0];
            expectedSum = e[1];
            op = () -> microFunction(db);
            teardown.add("DROP ALIAS IF EXISTS py_net");
        } else if (benchmark.equals("micro.pyaggregate")) {
            exec(db, "CREATE AGGREGATE py_revenue FOR \"Bench$Revenue\"");
            double[] e = countSum(db, REVENUE_EXPECTED);
            expectedSum = e[1];
            sumOnly = true;
            op = () -> microAggregate(db);
            teardown.add("DROP AGGREGATE IF EXISTS py_revenue");
        } else if (benchmark.equals("micro.filltable")) {
            int n = Integer.parseInt(task.getProperty("rows", "0"));
            fillStrs = new String[n];
            for (int i = 0; i < n; i++) fillStrs[i] = "row " + i;
            expectedCount = n;
            expectedSum = (double) ((long) n * (n - 1) / 2);
            op = () -> microFilltable(db);
        } else if (benchmark.equals("selftest.wrong")) {
            expectedCount = 42;
            op = () -> {
                Out o = new Out();
                o.count = ((Number) fetchAll(db, "SELECT 41").get(0)[0]).longValue();
                o.crossings = 2;
                o.values = 1;
                return o;
            };
        } else if (benchmark.endsWith("_server")) {
            fail(r, "not_applicable", "an embedded engine runs in the client's own process: its Java callbacks are "
                    + "what micro.pyfunction / micro.pyaggregate measure");
            return;
        } else {
            fail(r, "not_applicable", "no Java implementation of " + benchmark + " in harness/run/jvm/Bench.java");
            return;
        }
        long budgetNs = (long) (Double.parseDouble(task.getProperty("budget_s", "0")) * 1e9);
        int minIterations = Integer.parseInt(task.getProperty("min_iterations", "2"));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        String firstFailure = null;
        long spent = 0;
        System.gc();
        for (int i = 0; i < iterations; i++) {
            long t0 = System.nanoTime();
            long c0 = threads.getCurrentThreadCpuTime();
            Out o = op.run();
            long c1 = threads.getCurrentThreadCpuTime();
            long t1 = System.nanoTime();
            r.wall[i] = t1 - t0;
            r.cpu[i] = c1 - c0;
            String problem;
            if (answer != null) {
                problem = answer.compare(o.rows);
            } else if (sumOnly) {
                problem = closeEnough(o.sum, expectedSum) ? null
                        : "revenue " + o.sum + ", expected " + expectedSum;
            } else if (benchmark.equals("selftest.wrong")) {
                problem = o.count == expectedCount ? null : "expected 42, got " + o.count;
            } else {
                problem = o.count == expectedCount && closeEnough(o.sum, expectedSum) ? null
                        : "got (rows " + o.count + ", sum " + o.sum + "), expected (" + expectedCount + ", " + expectedSum + ")";
            }
            r.ok[i] = problem == null;
            if (problem != null && firstFailure == null) firstFailure = "iteration " + i + ": " + problem;
            if (i == 0) replay = counts(db, benchmark, o);
            r.crossings[i] = replay[0];
            r.values[i] = replay[1];
            r.done = i + 1;
            spent += t1 - t0;
            if (budgetNs > 0 && spent >= budgetNs && i + 1 >= minIterations && i + 1 < iterations) {
                r.budgetStop = String.format("time budget of %.1f s spent after %d of %d iterations",
                        budgetNs / 1e9, i + 1, iterations);
                break;
            }
        }
        for (int i = 0; i < r.done; i++) {
            r.crossings[i] = replay[0];
            r.values[i] = replay[1];
        }
        for (String sql : teardown) exec(db, sql);
        if (firstFailure != null) {
            fail(r, "invalid", "wrong result: " + firstFailure);
        } else {
            r.status = "ok";
            r.reason = "";
        }
    }

    static boolean source(Properties task) {
        return !task.getProperty("database", "").isEmpty();
    }

    static void fail(Result r, String status, String reason) {
        r.status = status;
        r.reason = reason;
    }

    /** (crossings, values converted) of one operation; the callbacks by an instrumented replay. */
    static long[] counts(Connection db, String benchmark, Out first) throws SQLException {
        if (benchmark.equals("micro.pyfunction")) {
            exec(db, "DROP ALIAS py_net");
            exec(db, "CREATE ALIAS py_net FOR \"Bench.pyNetCounting\"");
            calls = 0;
            Out o;
            try {
                o = microFunction(db);
            } finally {
                exec(db, "DROP ALIAS py_net");
                exec(db, "CREATE ALIAS py_net FOR \"Bench.pyNet\"");
            }
            // as micro.py: the query, each row, each call; per row its value, per call one in and one out
            return new long[] {1 + o.count + calls, o.count + 2 * calls};
        }
        if (benchmark.equals("micro.pyaggregate")) {
            exec(db, "DROP AGGREGATE py_revenue");
            exec(db, "CREATE AGGREGATE py_revenue FOR \"Bench$RevenueCounting\"");
            steps = 0;
            Out o;
            try {
                o = microAggregate(db);
            } finally {
                exec(db, "DROP AGGREGATE py_revenue");
                exec(db, "CREATE AGGREGATE py_revenue FOR \"Bench$Revenue\"");
            }
            // as micro.py: the query + each step + the final call + the result row; two values per
            // step and the one value fetched
            return new long[] {1 + steps + 1 + o.count, 2 * steps + o.count};
        }
        return new long[] {first.crossings, first.values};
    }
}
