// T-SQL syntax check harness around Microsoft's own parser (Microsoft.SqlServer.SqlParser.dll,
// taken from the mssql-scripter wheel by build.sh; the dll is never committed).
//
// Why a harness: mono takes a while to start and to JIT the parser, so one process checks many
// batches. The parser is handed one GO batch at a time: splitting on GO is qgen's job
// (qgen.dialects.mssql.batch_spans), and the caller maps batch-relative lines back to the script.
//
// Input (stdin): a JSON array of strings, one T-SQL batch each, without GO lines.
// Output (stdout): one JSON object per line for each problem,
//   {"batch":i,"line":l,"column":c,"end_line":l2,"end_column":c2,"type":"ParseError","warning":false,"message":"..."}
// with 0-based batch index and 1-based line/column relative to that batch, then a last line
//   {"done":n,"parser":"<assembly version>","compatibility":"Version140","tsql":"Version140"}
// which the caller checks to know the run was complete. The parser exposes no SQL Server error
// number (Error has Message/Start/End/IsWarning/Type only), so none is reported.
//
// `mono Harness.exe --selftest` parses two known batches and exits 0 only if the results are as expected.

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Runtime.Serialization.Json;
using System.Text;
using Microsoft.SqlServer.Management.SqlParser.Common;
using Microsoft.SqlServer.Management.SqlParser.Parser;

internal static class Harness
{
    // SQL Server 2017. TransactSqlVersion is what selects the grammar (Version120 and lower reject
    // CREATE OR ALTER / DROP ... IF EXISTS, Version130+ accept them); CompatibilityLevel is set too
    // so the options describe a 2017 database consistently.
    private static ParseOptions Options()
    {
        var options = new ParseOptions();
        options.CompatibilityLevel = DatabaseCompatibilityLevel.Version140;
        options.TransactSqlVersion = TransactSqlVersion.Version140;
        options.IsQuotedIdentifierSet = true;
        // Keep the default batch separator ("GO"): a batch handed to us should contain no GO line,
        // and if the parser still finds more than one batch, that is reported (see Check).
        return options;
    }

    private static int Main(string[] args)
    {
        var stdout = new StreamWriter(Console.OpenStandardOutput(), new UTF8Encoding(false));
        stdout.NewLine = "\n";
        try
        {
            if (args.Length == 1 && args[0] == "--selftest")
            {
                return SelfTest(stdout);
            }
            if (args.Length != 0)
            {
                Console.Error.WriteLine("usage: mono Harness.exe < batches.json   (a JSON array of T-SQL batch strings)");
                Console.Error.WriteLine("       mono Harness.exe --selftest");
                return 2;
            }
            string[] batches;
            using (var stdin = Console.OpenStandardInput())
            {
                batches = (string[])new DataContractJsonSerializer(typeof(string[])).ReadObject(stdin);
            }
            if (batches == null)
            {
                Console.Error.WriteLine("harness: stdin must be a JSON array of strings");
                return 2;
            }
            var options = Options();
            for (int i = 0; i < batches.Length; i++)
            {
                foreach (var line in Check(i, batches[i] ?? "", options))
                {
                    stdout.WriteLine(line);
                }
            }
            stdout.WriteLine(Done(batches.Length, options));
            return 0;
        }
        finally
        {
            stdout.Flush();
        }
    }

    private static IEnumerable<string> Check(int index, string batch, ParseOptions options)
    {
        var lines = new List<string>();
        ParseResult result;
        try
        {
            result = Parser.Parse(batch, options);
        }
        catch (Exception e)
        {
            // An internal parser failure is still a finding against that batch, not a crash of the run.
            lines.Add(Json(index, 1, 1, 1, 1, "HarnessError", false, "Microsoft parser threw " + e.GetType().Name + ": " + e.Message));
            return lines;
        }
        foreach (var error in result.Errors)
        {
            lines.Add(Json(index, error.Start.LineNumber, error.Start.ColumnNumber, error.End.LineNumber,
                           error.End.ColumnNumber, error.Type.ToString(), error.IsWarning, error.Message));
        }
        if (result.BatchCount > 1)
        {
            lines.Add(Json(index, 1, 1, 1, 1, "BatchSeparator", false,
                           "Microsoft parser sees " + result.BatchCount + " batches here: a batch separator that qgen's split_batches did not cut on"));
        }
        return lines;
    }

    private static int SelfTest(StreamWriter stdout)
    {
        var options = Options();
        var good = new List<string>(Check(0, "SET NOCOUNT, XACT_ABORT ON;\n;WITH c AS (SELECT 1 AS x) SELECT x FROM c;", options));
        var bad = new List<string>(Check(1, "SELECT 1;\nSELEC 1;", options));
        foreach (var line in good) stdout.WriteLine(line);
        foreach (var line in bad) stdout.WriteLine(line);
        stdout.WriteLine(Done(2, options));
        bool ok = good.Count == 0 && bad.Count >= 1 && bad[0].Contains("\"line\":2,");
        Console.Error.WriteLine(ok ? "harness selftest: ok" : "harness selftest: FAILED");
        return ok ? 0 : 1;
    }

    private static string Done(int count, ParseOptions options)
    {
        var version = typeof(Parser).Assembly.GetName().Version.ToString();
        return "{\"done\":" + count.ToString(CultureInfo.InvariantCulture)
               + ",\"parser\":" + Str(version)
               + ",\"compatibility\":" + Str(options.CompatibilityLevel.ToString())
               + ",\"tsql\":" + Str(options.TransactSqlVersion.ToString()) + "}";
    }

    private static string Json(int batch, int line, int column, int endLine, int endColumn, string type, bool warning, string message)
    {
        var inv = CultureInfo.InvariantCulture;
        return "{\"batch\":" + batch.ToString(inv)
               + ",\"line\":" + line.ToString(inv)
               + ",\"column\":" + column.ToString(inv)
               + ",\"end_line\":" + endLine.ToString(inv)
               + ",\"end_column\":" + endColumn.ToString(inv)
               + ",\"type\":" + Str(type)
               + ",\"warning\":" + (warning ? "true" : "false")
               + ",\"message\":" + Str(message) + "}";
    }

    // JSON string literal, ASCII-only output (everything else as \uXXXX) so no encoding can garble it.
    private static string Str(string s)
    {
        var sb = new StringBuilder(s.Length + 2);
        sb.Append('"');
        foreach (char ch in s)
        {
            switch (ch)
            {
                case '"': sb.Append("\\\""); break;
                case '\\': sb.Append("\\\\"); break;
                case '\n': sb.Append("\\n"); break;
                case '\r': sb.Append("\\r"); break;
                case '\t': sb.Append("\\t"); break;
                default:
                    if (ch < 0x20 || ch > 0x7e)
                    {
                        sb.Append("\\u").Append(((int)ch).ToString("x4", CultureInfo.InvariantCulture));
                    }
                    else
                    {
                        sb.Append(ch);
                    }
                    break;
            }
        }
        sb.Append('"');
        return sb.ToString();
    }
}
